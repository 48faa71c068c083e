// TFRecord shards served over HTTP on loopback (nginx when installed, else Node's own server: the
// test says which) train on 2 simulated workers to the same bits and final loss as the same shards
// read from the local folder. The local run leaves its record indexes beside the shards, so the
// HTTP run fetches them (`<url>.mgpu-index`) and keeps them in the cache folder, from which the
// next HTTP run reads them; the input line says which.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { trainDigitsOn } from '../helpers/digit-shard-run.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-http');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');

test('tfrecord shards over HTTP train the bits the same local shards train; their indexes fetched, then read from the cache', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 36);
  writeDigitShards(digits, path.join(dir, 'shards'), 3);
  const server = await serveShards(path.join(dir, 'shards'));
  t.after(() => server.stop());
  t.diagnostic(`served by ${server.which} at ${server.url}`);
  const run = (name: string, files: string, lines: string[] = []) =>
    trainDigitsOn(
      dir,
      name,
      { type: 'tfrecord', files, image: 'image/encoded', label: 'image/class/label', size: [28, 28], channels: 1, http: { inFlight: 4 } },
      { threads: 2, steps: 8, seed: 3, workers: 2, lines },
    );
  const local = await run('local', path.join(dir, 'shards', 'train-{00000..00002}-of-00003'));
  const lines: string[] = [];
  const overHttp = await run('http', `${server.url}/train-{00000..00002}-of-00003`, lines);
  assert.equal(overHttp.steps, 8);
  assert.deepEqual(Buffer.from(overHttp.weights.buffer), Buffer.from(local.weights.buffer));
  assert.equal(overHttp.finalLoss, local.finalLoss);
  const input = lines.find((l) => l.includes('tfrecord files http'));
  assert.ok(input?.includes(': 36 records in 3 shards, 10 classes, 28x28x1 float32, '), input);
  assert.ok(
    input?.includes(
      `record indexes: 3 fetched (<url>.mgpu-index beside the shard), kept in the cache folder ${path.join(dir, 'cache', 'url-index')} (the shards are URLs)`,
    ),
    input,
  );
  assert.ok(server.which !== 'node' || server.log.some((l) => /^GET \/train-00001-of-00003 bytes=\d+-\d+$/.test(l)), 'records read by range requests');
  const again: string[] = [];
  const second = await run('http-again', `${server.url}/train-{00000..00002}-of-00003`, again);
  assert.deepEqual(Buffer.from(second.weights.buffer), Buffer.from(local.weights.buffer));
  assert.ok(
    again.some((l) => l.includes('record indexes: 3 read, kept in the cache folder')),
    again.join('\n'),
  );
});
