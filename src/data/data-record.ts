// What a run is trained on, as each checkpoint records it (trainer-state.json's `data`) and a
// resume compares (coordinator/run/resume-data.ts): per split its sample count, the files it
// was read from (file-fingerprint.ts: size, mtime, CRC-32C of the first and last 64 KiB), each
// under the config key that names it (data.train.features, data.eval.path, ...), and for images
// the index: its count and a SHA-256 of its paths and class indices in index order (a folder's
// is sorted: classes, then files by code point). A map-style or generator module is recorded by
// its length, mnist by its count: their files are the module's own business.
import { createHash } from 'node:crypto';
import type { DataSource } from '../config/types.ts';
import { shardFiles } from '../shared/shard-files.ts';
import { fingerprintFile } from './file-fingerprint.ts';
import type { Dataset, NamedArray } from './rows.ts';
import type { DataRecord, FileRecord, IndexRecord, SplitRecord } from './split-record.ts';

/** What an image index gives its split's record: the relative path and class of each image. */
export interface IndexPaths {
  count: number;
  relative(i: number): string;
  labels: Int32Array;
}

/** The data of a run: its training split's record, and its eval split's when it has one. */
export function dataRecord(train: Dataset, evalSet: Dataset | null): DataRecord {
  return { splits: [train.record, evalSet?.record].filter((r): r is SplitRecord => r !== undefined) };
}

/**
 * The record of split `keyPath` read from `src` (`loaded` as its reader gave it, before a
 * hold-out split); `count`: the samples it trains or evaluates on.
 */
export function recordSplit(src: DataSource, keyPath: string, loaded: Dataset & { index?: IndexPaths }, count: number): SplitRecord {
  const files: FileRecord[] = [];
  const add = (key: string, file: string) => files.push({ key, file, ...(loaded.shardFingerprints?.get(file) ?? fingerprintFile(file, key)) });
  const arrays = (key: string, named: NamedArray[] | undefined) => {
    for (const a of named ?? []) for (const file of a.parts ?? [a.file]) add(`${keyPath}.${key}${a.name ? `.${a.name}` : ''}`, file);
  };
  let index: IndexRecord | null = null;
  if (src.type === 'npy') {
    arrays('features', loaded.inputs);
    arrays('labels', loaded.targets);
    if (src.weights) add(`${keyPath}.weights`, src.weights);
  } else if (src.type === 'csv') {
    add(`${keyPath}.path`, src.path);
  } else if (src.type === 'images') {
    if (src.list !== null) add(`${keyPath}.list`, src.list);
    if (loaded.index) index = { key: `${keyPath}.${src.dir !== null ? 'dir' : 'list'}`, count: loaded.index.count, sha256: indexDigest(loaded.index) };
  } else if (src.type === 'tfrecord') {
    for (const shard of shardFiles(src.files, `${keyPath}.files`)) add(`${keyPath}.files`, shard);
    if (loaded.index) index = { key: `${keyPath}.files`, count: loaded.index.count, sha256: indexDigest(loaded.index) };
  } else if (src.type === 'webdataset') {
    for (const shard of shardFiles(src.shards, `${keyPath}.shards`)) add(`${keyPath}.shards`, shard);
    if (loaded.index) index = { key: `${keyPath}.shards`, count: loaded.index.count, sha256: indexDigest(loaded.index) };
  }
  return { key: keyPath, count, files, index };
}

function indexDigest(index: IndexPaths): string {
  const h = createHash('sha256');
  // In chunks of 4,096 images: one update a path costs more than the hash itself.
  for (let at = 0; at < index.count; at += 4096) {
    let chunk = '';
    for (let i = at; i < Math.min(at + 4096, index.count); i++) chunk += `${index.relative(i)}\0${index.labels[i]!}\n`;
    h.update(chunk);
  }
  return h.digest('hex');
}
