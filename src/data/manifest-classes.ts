// The class names of shards written by `mgpu-train shards`: its shards.json beside them lists the
// classes (index = label), so a run on those shards names its classes as the folder did (labels.json,
// the run's header, predict's CSV) instead of by their numbers, when data.classes does not name them.
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from '../config/types.ts';
import { isShardUrl, shardFiles } from '../shared/shard-files.ts';
import type { ClassMapping } from './classes.ts';
import { MANIFEST } from './shards/write-out-dir.ts';

/**
 * The classes the shards.json beside a shard source's first shard lists, when that manifest lists
 * the shard (it describes these shards); else null (no manifest, URL shards, other sources).
 */
export function manifestClasses(src: DataSource, keyPath: string): ClassMapping | null {
  const pattern = src.type === 'webdataset' ? src.shards : src.type === 'tfrecord' && 'image' in src ? src.files : null;
  if (pattern === null || isShardUrl(pattern)) return null;
  const first = shardFiles(pattern, `${keyPath}.${src.type === 'webdataset' ? 'shards' : 'files'}`)[0];
  if (first === undefined) return null;
  const file = path.join(path.dirname(first), MANIFEST);
  let m: unknown;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null; // none, or not one this can read: the classes are named by their numbers, as without one
  }
  if (!isManifest(m) || !m.shards.some((s) => path.resolve(path.dirname(file), s.file) === path.resolve(first))) return null;
  return {
    classes: m.classes,
    from: file,
    hint: `a record's label is an index into the classes ${file} lists; set data.classes to name more`,
  };
}

function isManifest(m: unknown): m is { classes: string[]; shards: { file: string }[] } {
  if (typeof m !== 'object' || m === null) return false;
  const { createdBy, classes, shards } = m as Record<string, unknown>;
  return (
    createdBy === 'mgpu-train shards' &&
    Array.isArray(classes) &&
    classes.length > 0 &&
    classes.every((c) => typeof c === 'string') &&
    Array.isArray(shards) &&
    shards.every((s) => typeof s === 'object' && s !== null && typeof (s as { file?: unknown }).file === 'string')
  );
}
