// The tests' readers of the shards `mgpu-train shards` writes, independent of the project's code:
// Debian's /usr/bin/python3 running read_tfrecord.py (framing, both masked CRC-32Cs, the Example
// walked by hand) and read_webdataset.py (Python's tarfile, ustar headers checked), their JSON
// parsed here. Also a file's sha256, to compare a record's bytes with the image it came from.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const PYTHON = '/usr/bin/python3';
const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export interface PyBytes {
  sha256: string;
  length: number;
  text?: string;
}
export type PyFeature = { kind: 'bytes'; values: PyBytes[] } | { kind: 'int64'; values: number[] };
export interface PyTfRecordFile {
  file: string;
  bytes: number;
  records: Array<{ length: number; features: Record<string, PyFeature> }>;
}
export interface PyTarFile {
  file: string;
  bytes: number;
  members: Array<{ name: string; size: number; sha256: string; text?: string }>;
}

function runPython(name: string, files: string[]): unknown {
  const r = spawnSync(PYTHON, [script(name), ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${name} failed (${r.status}): ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout);
}

export const readTfRecords = (files: string[]) => runPython('read_tfrecord.py', files) as PyTfRecordFile[];
export const readTars = (files: string[]) => runPython('read_webdataset.py', files) as PyTarFile[];

/** The one bytes value of a feature (its text too), failing on any other kind. */
export function bytesOf(f: PyFeature | undefined): PyBytes {
  if (f?.kind !== 'bytes' || f.values.length !== 1) throw new Error(`expected one bytes value, got ${JSON.stringify(f)}`);
  return f.values[0]!;
}

/** The one int64 value of a feature. */
export function int64Of(f: PyFeature | undefined): number {
  if (f?.kind !== 'int64' || f.values.length !== 1) throw new Error(`expected one int64 value, got ${JSON.stringify(f)}`);
  return f.values[0]!;
}

export const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The files of `dir` that are not hidden, sorted. */
export const visibleFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .sort();
