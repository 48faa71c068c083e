// A shard rewritten with other labels (the same size: every label one byte) and served over HTTP
// with its old index still beside it (`<url>.mgpu-index`, uploaded from the first version) is
// never read with the old labels: the index's CRC-32C of the shard's bytes no longer matches what
// the server serves, so the shard is indexed again from its bytes. A TFRecord shard and a tar
// shard, served by nginx where it is installed (else Node's server).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { shardIndex, type ShardScanner } from '../../src/data/shards/shard-index.ts';
import { urlShardIndexes } from '../../src/data/shards/url-index.ts';
import type { RecordKeys } from '../../src/data/shards/record-features.ts';
import { tarScan } from '../../src/data/shards/webdataset-scan.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('shards-http-rewritten');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');
const served = path.join(dir, 'served');
fs.mkdirSync(served, { recursive: true });
const before = [0, 1, 2, 0, 1, 2];
const after = [2, 0, 1, 1, 0, 2];

async function staleBeside(t: test.TestContext, name: string, write: (labels: number[]) => void, keys: RecordKeys | ShardScanner): Promise<void> {
  const file = path.join(served, name);
  write(before);
  assert.deepEqual([...shardIndex(file, keys).labels], before); // its index beside it, as a local run leaves it
  const oldIndex = fs.readFileSync(`${file}.mgpu-index`);
  const size = fs.statSync(file).size;
  write(after);
  assert.equal(fs.statSync(file).size, size, 'the rewritten shard is of the same size');
  fs.writeFileSync(`${file}.mgpu-index`, oldIndex);
  const server = await serveShards(served);
  t.diagnostic(`served by ${server.which}`);
  t.after(() => server.stop());
  const [x] = await urlShardIndexes([`${server.url}/${name}`], keys);
  assert.deepEqual([x!.how, [...x!.labels]], ['rebuilt', after]);
  assert.match(x!.why!, /\.mgpu-index: the shard changed since it was indexed \(the CRC-32C of its bytes is [0-9a-f]{8}, not [0-9a-f]{8}\)$/);
  const [again] = await urlShardIndexes([`${server.url}/${name}`], keys);
  assert.deepEqual([again!.how, [...again!.labels]], ['read', after]);
}

test('a TFRecord shard rewritten with other labels, its old index beside it on the server: indexed again, the new labels', async (t) => {
  const file = path.join(served, 'a.tfrecord');
  const write = (labels: number[]) => writeShards([{ path: file, records: labels.map((l, i) => digitRecord(Uint8Array.from([i, 7]), l)) }]);
  await staleBeside(t, 'a.tfrecord', write, { image: 'image/encoded', label: 'image/class/label' });
});

test('a tar shard rewritten with other labels, its old index beside it on the server: indexed again, the new labels', async (t) => {
  const file = path.join(served, 'a.tar');
  const write = (labels: number[]) =>
    writeTarShards([
      {
        path: file,
        members: labels.flatMap((l, i) => [
          { name: `k${i}.png`, data: 'png' },
          { name: `k${i}.cls`, data: String(l) },
        ]),
      },
    ]);
  const keys = { image: ['png'], label: 'cls' };
  await staleBeside(t, 'a.tar', write, { stamp: JSON.stringify(['webdataset', keys.image, keys.label]), scan: (f, size) => tarScan(f, size, keys) });
});
