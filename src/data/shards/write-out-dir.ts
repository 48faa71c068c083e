// The out dir of `mgpu-train shards`: nothing already there is silently replaced. A folder that
// holds shards (of either format, any prefix), a shards.json or an interrupted run's temporary
// files is refused, naming it and what it holds, unless --force; then those files are removed
// only once the new shards are complete (an interrupted --force run leaves the old ones whole).
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../../shared/errors.ts';
import { TFRECORD_FORMAT } from './write-tfrecord.ts';
import { WEBDATASET_FORMAT } from './write-tar.ts';

export const MANIFEST = 'shards.json';
export const TEMP_SUFFIX = '.partial';

const isShardFile = (name: string) => name === MANIFEST || name.endsWith(TEMP_SUFFIX) || TFRECORD_FORMAT.isShard(name) || WEBDATASET_FORMAT.isShard(name);

/** Checks that `outDir` may take new shards; returns the earlier shard files that --force is to replace. */
export function checkOutDir(outDir: string, force: boolean): string[] {
  if (!fs.existsSync(outDir)) return [];
  if (!fs.statSync(outDir).isDirectory())
    throw new MgpuError('E_USAGE', `shards: the out dir ${outDir} is a file, not a folder`, { hint: 'name a new folder, or an empty one' });
  const found = fs
    .readdirSync(outDir)
    .filter(isShardFile)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (found.length > 0 && !force) {
    const shown = found.slice(0, 3).join(', ') + (found.length > 3 ? `, ... (${found.length} files)` : '');
    throw new MgpuError('E_USAGE', `shards: the out dir ${outDir} already holds shards (${shown}); nothing was written`, {
      hint: 'name a new or empty folder, or add --force to replace those files (once the new shards are complete)',
    });
  }
  return found.map((f) => path.join(outDir, f));
}
