// The out dir of `mgpu-train shards`: nothing already there is silently replaced. A folder that
// holds shards (of either format, any prefix), their record indexes (`<shard>.mgpu-index`), a
// shards.json or an interrupted run's temporary files is refused, naming it and what it holds,
// unless --force; then those files are removed only once the new shards are complete (an
// interrupted --force run leaves the old ones whole), the old shards' indexes with them. The
// images folder itself, or a folder inside it, is refused as the out dir: its shards would be read
// as a class folder of images by the next run over that folder.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../../shared/errors.ts';
import { INDEX_SUFFIX } from '../../shared/shard-files.ts';
import { TFRECORD_FORMAT } from './write-tfrecord.ts';
import { WEBDATASET_FORMAT } from './write-tar.ts';

export const MANIFEST = 'shards.json';
export const TEMP_SUFFIX = '.partial';

const isShard = (name: string) => TFRECORD_FORMAT.isShard(name) || WEBDATASET_FORMAT.isShard(name);
const isShardFile = (name: string) =>
  name === MANIFEST || name.endsWith(TEMP_SUFFIX) || isShard(name) || (name.endsWith(INDEX_SUFFIX) && isShard(name.slice(0, -INDEX_SUFFIX.length)));

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

/** `p` with its links resolved as far as it exists (an out dir not made yet resolves through its nearest existing parent). */
function realPath(p: string): string {
  const abs = path.resolve(p);
  if (fs.existsSync(abs)) return fs.realpathSync(abs);
  const parent = path.dirname(abs);
  return parent === abs ? abs : path.join(realPath(parent), path.basename(abs));
}

/** Refuses an out dir that is the images folder `source` or inside it (a list's images are named by it, so any out dir does). */
export function checkOutsideSource(source: string, outDir: string): void {
  if (!fs.existsSync(source) || !fs.statSync(source).isDirectory()) return;
  const src = realPath(source);
  const out = realPath(outDir);
  const rel = path.relative(src, out);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return;
  const what = rel === '' ? 'is the images folder' : `is inside the images folder ${source}`;
  throw new MgpuError('E_USAGE', `shards: the out dir ${outDir} ${what}: its shards would be read as a class folder of images by the next run over it`, {
    hint: `name an out dir outside ${source}, e.g. ${path.join(path.dirname(src), `${path.basename(src)}-shards`)}`,
  });
}
