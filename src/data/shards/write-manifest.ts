// <out dir>/shards.json, written last (under a temporary name, then renamed): the shards in
// order with their records and bytes, the classes (index = label), what each sample holds, the
// order the samples were written in, the images left out (and why) and the command's arguments.
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST, TEMP_SUFFIX } from './write-out-dir.ts';

export interface ShardEntry {
  file: string; // relative to the out dir
  records: number; // samples in it
  first: number; // the written-order number (the webdataset key) of its first sample
  bytes: number;
}

export interface ShardsManifest {
  createdBy: 'mgpu-train shards';
  version: 1;
  format: 'tfrecord' | 'webdataset';
  source: string; // the images folder or list, absolute
  sourceKind: 'folder' | 'list';
  samples: number;
  classes: string[];
  order: string; // "sorted (class, then path)" or "shuffled, seed N"
  holds: Record<string, string>;
  shards: ShardEntry[];
  skipped: Array<{ file: string; why: string }>; // images left out: they cannot be read or decoded
  arguments: Record<string, unknown>;
}

export function writeManifest(outDir: string, m: ShardsManifest): string {
  const file = path.join(outDir, MANIFEST);
  const temp = path.join(outDir, `.${MANIFEST}${TEMP_SUFFIX}`);
  fs.writeFileSync(temp, JSON.stringify(m, null, 2) + '\n');
  fs.renameSync(temp, file);
  return file;
}
