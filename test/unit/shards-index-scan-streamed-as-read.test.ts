// The index scans over a stream (a URL's GET: scanStream) give what they give over the file
// (scanFile), whatever the stream's chunk sizes (1 byte, 7, 512, 64 KiB: a read split across
// chunks, a tar member's data passed over inside and across chunks, long names from pax and GNU
// records): the same offsets, lengths and labels, and the same DataError for a damaged shard.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tfrecordScan } from '../../src/data/shards/index-scan.ts';
import { scanFile, scanStream, type Scan } from '../../src/data/shards/scan-reads.ts';
import { tarScan } from '../../src/data/shards/webdataset-scan.ts';
import type { RecordIndex } from '../../src/data/shards/index-file.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('scan-stream');
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

async function* chunks(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

const plain = (x: RecordIndex) => ({ count: x.count, offsets: [...x.offsets], lengths: [...x.lengths], labels: [...x.labels], unknown: x.unknown ?? 0 });

async function sameEitherWay(file: string, scan: () => Scan<RecordIndex>): Promise<void> {
  const fd = fs.openSync(file, 'r');
  let fromFile: RecordIndex | Error;
  try {
    fromFile = scanFile(scan(), fd);
  } catch (err) {
    fromFile = err as Error;
  } finally {
    fs.closeSync(fd);
  }
  const data = fs.readFileSync(file);
  for (const size of [1, 7, 512, 65536]) {
    if (fromFile instanceof Error) await assert.rejects(scanStream(scan(), chunks(data, size), file), { message: fromFile.message }, `chunks of ${size}`);
    else assert.deepEqual(plain(await scanStream(scan(), chunks(data, size), file)), plain(fromFile), `chunks of ${size}`);
  }
}

test('a TFRecord shard: the same index from the file and from a stream, and the same error when a data byte is flipped', async () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: Array.from({ length: 9 }, (_, i) => digitRecord(bytes(100 + 37 * i, i), i % 4)) }]);
  const keys = { image: 'image/encoded', label: 'image/class/label' };
  await sameEitherWay(file, () => tfrecordScan(file, fs.statSync(file).size, keys));
  const bad = fs.readFileSync(file);
  bad[bad.length - 40]! ^= 1;
  fs.writeFileSync(file, bad);
  await sameEitherWay(file, () => tfrecordScan(file, bad.length, keys));
});

test('tar shards (pax, GNU, ustar): the same index from the file and from a stream', async () => {
  const deep = `${'long-folder-name/'.repeat(12)}sample`;
  for (const format of ['pax', 'gnu', 'ustar'] as const) {
    const file = path.join(dir, `b-${format}.tar`);
    const long =
      format === 'ustar'
        ? []
        : [
            { name: `${deep}.png`, data: bytes(1025, 4) },
            { name: `${deep}.cls`, data: '5' },
          ];
    writeTarShards([
      {
        path: file,
        format,
        members: [
          { name: 's0.jpg', data: bytes(700, 1) },
          { name: 's0.cls', data: '3' },
          { name: 's0.txt', data: 'a caption' },
          { name: 's1.png', data: bytes(3000, 2) },
          { name: 's1.cls', data: '0\n' },
          ...long,
        ],
      },
    ]);
    await sameEitherWay(file, () => tarScan(file, fs.statSync(file).size, { image: ['jpg', 'png'], label: 'cls' }));
  }
});
