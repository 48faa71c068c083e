// WebDataset tar shards served over HTTP on loopback (nginx when installed, else Node's own
// server: the test says which), with no index beside them, train on 2 simulated workers to the
// bits the same tars train from the local folder: each shard's sample index is built by one
// streaming GET through the tar scan, kept in the cache folder, and the input line says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { trainDigitsOn } from '../helpers/digit-shard-run.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeDigitTars } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-http');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');

test('webdataset shards over HTTP, indexed by a streaming GET each, train the bits the same local tars train', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  writeDigitTars(digits, path.join(dir, 'served'), 2, true); // with .txt captions: members of an unknown extension
  fs.cpSync(path.join(dir, 'served'), path.join(dir, 'local'), { recursive: true });
  const server = await serveShards(path.join(dir, 'served'));
  t.after(() => server.stop());
  t.diagnostic(`served by ${server.which} at ${server.url}`);
  const run = (name: string, shards: string, lines: string[] = []) =>
    trainDigitsOn(
      dir,
      name,
      { type: 'webdataset', shards, image: 'png', size: [28, 28], channels: 1, augment: { flip: 'horizontal' }, http: { inFlight: 2 } },
      { threads: 2, steps: 7, seed: 8, workers: 2, lines },
    );
  const lines: string[] = [];
  const overHttp = await run('http', `${server.url}/train-{000000..000001}.tar`, lines);
  const local = await run('local', path.join(dir, 'local', 'train-{000000..000001}.tar'));
  assert.equal(overHttp.steps, 7);
  assert.deepEqual(Buffer.from(overHttp.weights.buffer), Buffer.from(local.weights.buffer));
  assert.equal(overHttp.finalLoss, local.finalLoss);
  const input = lines.find((l) => l.includes('webdataset shards http'));
  assert.ok(input?.includes(': 30 samples in 2 shards (30 members of unknown extensions passed over), 10 classes (8 with samples), 28x28x1 float32'), input);
  assert.ok(input?.includes(`sample indexes: 2 built, kept in the cache folder ${path.join(dir, 'cache', 'url-index')} (the shards are URLs)`), input);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'served')).sort(), ['train-000000.tar', 'train-000001.tar'], 'nothing written beside the served shards');
});
