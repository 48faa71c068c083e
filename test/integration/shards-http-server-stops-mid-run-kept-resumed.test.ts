// The server of a run's shards stops while the run trains (nginx killed after step 2, so the
// steps after it meet a refused connection): once its retries are spent the run fails with an
// E_DATA error naming the shard's URL, the record and the socket error with the attempts, exit 2,
// the steps trained kept in a checkpoint. Once the server is back (the same port), --resume
// reads the indexes from the cache and ends with the bits of a run the server never left.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('shards-http-mid-run');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');

test('the server stops mid-run: E_DATA naming the URL, checkpoint kept, resumed to the same bits once it is back', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  writeDigitShards(digits, path.join(dir, 'shards'), 1);
  const server = await serveShards(path.join(dir, 'shards'));
  t.after(() => server.stop());
  t.diagnostic(`served by ${server.which} at ${server.url}`);
  const url = `${server.url}/train-00000-of-00001`;
  const raw = (name: string) => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: {
        type: 'tfrecord',
        files: url,
        image: 'image/encoded',
        label: 'image/class/label',
        size: [28, 28],
        channels: 1,
        http: { retries: 2, timeoutMs: 2000 },
      },
      threads: 1,
      prefetch: 1,
    },
    training: { batchSize: 20, epochs: 2, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const full = await train(buildConfig(dir, raw('full'), 2), silent);
  assert.equal(full.steps, 6);
  const cfg = buildConfig(dir, raw('stopped'), 2);
  let stopped: Promise<void> = Promise.resolve();
  const stopsAfter2 = {
    ...silent,
    step: (step: number) => {
      if (step === 2) stopped = server.stop();
    },
  };
  await assert.rejects(train(cfg, stopsAfter2), (e: Error & { code?: string; exitCode?: number; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.match(
      e.message,
      new RegExp(
        `^shard ${url.replace(/[.]/g, '\\.')}: (connect ECONNREFUSED 127\\.0\\.0\\.1:${server.port}|read ECONNRESET|the connection was cut[^,]*) on its GET of record \\d+ \\(at byte \\d+\\) \\(bytes \\d+-\\d+\\), 3 attempts \\(the last one's answer\\)$`,
      ),
    );
    assert.match(e.hint ?? '', /the last completed step \(\d\) is in .*checkpoints.*--resume/s);
    return true;
  });
  await stopped;
  await server.start();
  const lines: string[] = [];
  const resumed = await train(cfg, { ...silent, line: (text: string) => void lines.push(text) }, { resume: cfg.runDir });
  assert.equal(resumed.steps, 6);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
  assert.ok(
    lines.some((l) => l.includes('record indexes: 1 read, kept in the cache folder')),
    lines.join('\n'),
  );
});
