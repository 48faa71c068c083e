// A shard that ends before the size it was indexed at (cut short while the index is built: it
// was being copied, or rewritten) is a DataError saying where the file ended and why, for a
// TFRecord shard whose last record lost its tail and for a tar shard cut inside a member.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { DataError } from '../../src/shared/errors.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('shrunk-shards');

/** `file` cut to `at` bytes after its size was taken; the scan is given the size from before. */
function cutShort(file: string, at: number): { size: number; ended: number } {
  const size = fs.statSync(file).size;
  fs.truncateSync(file, at);
  return { size, ended: at };
}

const shrank = (file: string, ended: number) => (e: unknown) =>
  e instanceof DataError && e.message === `${file}: the file ended at byte ${ended} (it shrank while it was indexed)`;

test('a TFRecord shard whose last record lost its tail', () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1, 2].map((i) => ({ features: { image: { bytes: [Uint8Array.of(i, i)] }, label: { int64: [i] } } })) }]);
  const { size, ended } = cutShort(file, fs.statSync(file).size - 10);
  assert.throws(() => scanShard(file, size, { image: 'image', label: 'label' }), shrank(file, ended));
});

test("a tar shard cut where a member's data begins", () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      format: 'gnu',
      members: [
        { name: 'k.jpg', data: 'x'.repeat(700) },
        { name: 'k.cls', data: '4' },
      ],
    },
  ]);
  // k.jpg's header at 0, its 700 bytes from 512 (to 1536 with padding), k.cls's header at 1536:
  // cut where k.cls's data begins.
  const { size, ended } = cutShort(file, 2048);
  assert.throws(() => scanTarShard(file, size, { image: ['jpg'], label: 'cls' }), shrank(file, ended));
});
