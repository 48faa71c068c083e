// A tfrecord source of x / y features whose shards are URLs (Node's own server on loopback): each
// shard indexed by one streaming GET, then read whole by one Range request, giving the same
// float32 and int32 rows as the same shards read locally; the header says the indexes were
// built in the cache folder; a checkpoint's record of the shards is their size and index CRC.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TfrecordFeatureSource } from '../../src/config/types.ts';
import { loadTfrecordFeatures } from '../../src/data/shards/load-tfrecord-features.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-features-http');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');

test('x / y features from URL shards: the rows of the same local shards', async (t) => {
  fs.mkdirSync(path.join(dir, 'served'));
  const record = (i: number) => ({ features: { v: { float: [i, i / 2, -i] }, c: { int64: [i % 3] } } });
  writeShards(
    [0, 1].map((k) => ({ path: path.join(dir, 'served', `part-${k}.tfrecord`), records: Array.from({ length: 4 + k }, (_, i) => record(10 * k + i)) })),
  );
  fs.cpSync(path.join(dir, 'served'), path.join(dir, 'local'), { recursive: true });
  const server = await serveShards(path.join(dir, 'served'), { node: true });
  t.after(() => server.stop());
  const source = (files: string): TfrecordFeatureSource => ({ type: 'tfrecord', files, x: { v: { key: 'v', shape: [3] } }, y: { c: { key: 'c', shape: [] } } });
  const remote = await loadTfrecordFeatures(source(`${server.url}/part-{0..1}.tfrecord`), 'data.train', false);
  const local = await loadTfrecordFeatures(source(path.join(dir, 'local', 'part-{0..1}.tfrecord')), 'data.train', false);
  assert.equal(remote.count, 9);
  assert.deepEqual(remote.features.toArray(), local.features.toArray());
  assert.deepEqual(remote.labels.toArray(), local.labels.toArray());
  assert.match(
    remote.describe!,
    /: 9 records in 2 shards, x \/ y features read whole; record indexes: 2 built, kept in the cache folder .*url-index \(the shards are URLs\)$/,
  );
  const whole = server.log.filter((l) => / bytes=0-\d+$/.test(l) && !l.endsWith('bytes=0-0'));
  assert.deepEqual(whole.map((l) => l.split(' ')[1]).sort(), ['/part-0.tfrecord', '/part-1.tfrecord'], server.log.join('\n'));
  const size = fs.statSync(path.join(dir, 'served', 'part-1.tfrecord')).size;
  assert.deepEqual(remote.shardFingerprints?.get(`${server.url}/part-1.tfrecord`)?.bytes, size);
  assert.match(remote.shardFingerprints.get(`${server.url}/part-1.tfrecord`)!.crc32c, /^[0-9a-f]{8}$/);
});
