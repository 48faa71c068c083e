// TFRecord shards for tests, written by an independent writer (tfrecord-writer.py, run by the
// system's /usr/bin/python3: its own CRC-32C and protobuf encoding, no code of mgpu-train's), and
// digit shards made from the same mnist PNGs an image folder of the tests holds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DigitFolder } from './digit-images.ts';

export type PyFeature = { bytes: Uint8Array[] } | { float: number[]; packed?: boolean } | { int64: Array<number | bigint>; packed?: boolean };
export type PyRecord = { raw: Uint8Array } | { features: Record<string, PyFeature> };

const WRITER = path.join(import.meta.dirname, 'tfrecord-writer.py');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function toJson(r: PyRecord): unknown {
  if ('raw' in r) return { raw: b64(r.raw) };
  const features: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(r.features)) {
    if ('bytes' in f) features[k] = { bytes: f.bytes.map(b64) };
    else if ('float' in f) features[k] = f;
    else features[k] = { ...f, int64: f.int64.map(String) };
  }
  return { features };
}

/** Writes each shard's records to its path with the Python writer. */
export function writeShards(shards: Array<{ path: string; records: PyRecord[] }>): void {
  const input = JSON.stringify({ shards: shards.map((s) => ({ path: s.path, records: s.records.map(toJson) })) });
  execFileSync('/usr/bin/python3', [WRITER], { input, stdio: ['pipe', 'inherit', 'inherit'] });
}

/** An image classification record: the image's bytes under image/encoded, its class under image/class/label. */
export const digitRecord = (image: Uint8Array, label: number): PyRecord => ({
  features: { 'image/encoded': { bytes: [image] }, 'image/class/label': { int64: [label] } },
});

/** The digits of `folder`, in its index order, as `shards` shards `<dir>/train-0000k-of-0000n` (consecutive runs). */
export function writeDigitShards(folder: DigitFolder, dir: string, shards: number): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const per = Math.ceil(folder.count / shards);
  const out = Array.from({ length: shards }, (_, k) => ({
    path: path.join(dir, `train-${String(k).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}`),
    records: folder.files.slice(k * per, (k + 1) * per).map((f, i) => digitRecord(fs.readFileSync(f), folder.labels[k * per + i]!)),
  }));
  writeShards(out);
  return out.map((s) => s.path);
}
