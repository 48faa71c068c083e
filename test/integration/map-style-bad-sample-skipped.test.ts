// data.onBadSample: skip with a map-style module: a get() that throws for one sample (3) leaves
// that sample out of its batch instead of ending the run, with a bad-sample line in metrics.jsonl
// naming sample 3 and what get() threw, in the coordinator's thread (no data.threads) and in 2
// data threads. Without skip the same module ends the run naming sample 3; a module that fails to
// load in a data thread is no bad sample: it still ends the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, FEATURES, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('map-style-bad-sample');
const N = 20;
const BAD = 3;
const moduleFile = (name: string, head = '') => {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `${head}
export default {
  length: ${N},
  get(i) {
    if (i === ${BAD}) throw new Error('record ${BAD} is corrupt');
    return { x: Array.from({ length: ${FEATURES} }, (_, k) => ((i * 7 + k) % 5) / 5), y: i % 3 };
  },
};
`,
  );
  return file;
};
const sometimesBad = moduleFile('bad-three.mjs');
// Loads in the coordinator (sample 0 fixes the shapes) but not in a data thread.
const noThreads = moduleFile(
  'no-threads.mjs',
  "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) throw new Error('this module does not load in a thread');",
);
const model = writeModelModule(dir, 'mlp');

const config = (name: string, module: string, threads: number | null, onBadSample = 'skip') =>
  buildConfig(
    dir,
    {
      name,
      model: { module: model },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'module', module }, threads, prefetch: 1, onBadSample },
      training: { batchSize: 5, epochs: 1, seed: 1 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
    },
    1,
  );
const badLines = (runDir: string) =>
  fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; sample?: number; epoch?: number; message?: string })
    .filter((m) => m.type === 'bad-sample');

for (const threads of [null, 2]) {
  test(`get() throwing for sample ${BAD} with skip: the run finishes without it (data.threads ${threads})`, async () => {
    const cfg = config(`skip-${threads}`, sometimesBad, threads);
    const r = await train(cfg, silent);
    assert.equal(r.steps, N / 5);
    const bad = badLines(cfg.runDir);
    assert.deepEqual(
      bad.map((b) => [b.epoch, b.sample]),
      [[0, BAD]],
    );
    assert.match(bad[0]!.message!, new RegExp(`sample ${BAD}: get\\(${BAD}\\) threw: record ${BAD} is corrupt`));
  });
}

test(`without skip the same get() ends the run naming sample ${BAD}`, async () => {
  await assert.rejects(train(config('strict', sometimesBad, null, 'error'), silent), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.match(e.message, new RegExp(`sample ${BAD}: get\\(${BAD}\\) threw`));
    return true;
  });
});

test('with skip, a module that fails to load in a data thread still ends the run, its samples not taken for bad ones', async () => {
  const cfg = config('no-load', noThreads, 2);
  await assert.rejects(train(cfg, silent), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.match(e.message, /^data\.train: module .*no-threads\.mjs .*failed to import: this module does not load in a thread \(in a data thread/);
    return true;
  });
  const metrics = path.join(cfg.runDir, 'metrics.jsonl');
  assert.deepEqual(fs.existsSync(metrics) ? badLines(cfg.runDir) : [], [], 'no sample was left out as bad');
});
