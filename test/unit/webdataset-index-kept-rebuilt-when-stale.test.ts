// A tar shard's sample index is the shared shard index: built once and kept beside the shard,
// read the next time (its offsets, lengths, labels and count of unknown members as built),
// rebuilt when the shard changed (size or mtime) or when it was built for other image parts,
// with the reason said.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { INDEX_SUFFIX, shardIndex } from '../../src/data/shards/shard-index.ts';
import { tarScan, type TarKeys } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-index');
const file = path.join(dir, 'a.tar');
const scanner = (keys: TarKeys) => ({
  stamp: JSON.stringify(['webdataset', keys.image, keys.label]),
  scan: (f: string, size: number) => tarScan(f, size, keys),
});
const write = (n: number) =>
  writeTarShards([
    {
      path: file,
      members: Array.from({ length: n }, (_, i) => [
        { name: `k${i}.jpg`, data: 'x'.repeat(i + 1) },
        { name: `k${i}.png`, data: 'y'.repeat(2 * i + 1) },
        { name: `k${i}.cls`, data: String(i % 3) },
        { name: `k${i}.txt`, data: 'caption' },
      ]).flat(),
    },
  ]);

test('built, read, then rebuilt when the shard changed or for other parts', () => {
  const jpg = scanner({ image: ['jpg'], label: 'cls' });
  write(4);
  const built = shardIndex(file, jpg);
  assert.deepEqual([built.how, built.indexFile, built.count, built.unknown], ['built', `${file}${INDEX_SUFFIX}`, 4, 4]);
  const read = shardIndex(file, jpg);
  assert.equal(read.how, 'read');
  assert.deepEqual([[...read.offsets], [...read.lengths], [...read.labels], read.unknown], [[...built.offsets], [1, 2, 3, 4], [0, 1, 2, 0], 4]);

  write(5); // another size and mtime
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const stale = shardIndex(file, jpg);
  assert.equal(stale.how, 'rebuilt');
  assert.match(stale.why!, /^the shard changed since it was indexed/);
  assert.equal(stale.count, 5);

  const png = shardIndex(file, scanner({ image: ['png'], label: 'cls' }));
  assert.equal(png.how, 'rebuilt');
  assert.match(png.why!, /it was checked for other feature keys/);
  assert.deepEqual([...png.lengths], [1, 3, 5, 7, 9]);
  assert.equal(shardIndex(file, scanner({ image: ['png'], label: 'cls' })).how, 'read');
});
