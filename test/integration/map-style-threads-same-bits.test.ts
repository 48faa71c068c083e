// data.threads set to a number runs a map-style module's get() in that many threads, each
// importing the (.ts) module itself (its default export called once a thread): 2 simulated
// workers train to the bits of the same run with get() in the coordinator's thread (data.threads
// unset), and a get() that throws in a thread ends the run with the E_DATA message the
// coordinator's thread gives, naming module and sample.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { finalWeights } from '../helpers/chaos.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('map-style-threads');
const calls = path.join(dir, 'threads.txt');
const makes = path.join(dir, 'makes.txt'); // a line each time the default export is called
// Typed, so tsx must load it in the threads; its rows depend on the epoch (an augmentation),
// and each get() notes the thread it ran in.
const module = path.join(dir, 'samples.ts');
fs.writeFileSync(
  module,
  `import fs from 'node:fs';
import { threadId } from 'node:worker_threads';
const F: number = 6;
export default function make({ split }: { split: string }) {
  fs.appendFileSync(${JSON.stringify(makes)}, threadId + '\\n');
  return {
    length: 40,
    get(i: number, { epoch }: { epoch: number; split: string }): { x: Float32Array; y: number } {
      if (process.env.MAP_STYLE_THROW_AT === String(i)) throw new Error('sample ' + i + ' is broken in ' + split);
      fs.appendFileSync(${JSON.stringify(calls)}, threadId + '\\n');
      const x = new Float32Array(F);
      for (let f = 0; f < F; f++) x[f] = Math.sin(i * 7 + f * 3 + epoch * 0.5);
      return { x, y: i % 3 };
    },
  };
}
`,
);
const model = writeModelModule(dir, 'mlp');

/** Trains 2 epochs of batch 8 on 2 workers; the header's input line and the threads get() ran in. */
async function run(name: string, threads: number | null) {
  fs.rmSync(calls, { force: true });
  fs.rmSync(makes, { force: true });
  const lines: string[] = [];
  const out: Progress = { ...silent, line: (l: string) => void lines.push(l) };
  const cfg = buildConfig(
    dir,
    {
      name,
      model: { module: model },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'module', module }, prefetch: 2, ...(threads === null ? {} : { threads }) },
      training: { batchSize: 8, epochs: 2, seed: 5 },
      optimizer: { name: 'adam', learningRate: 0.01 },
    },
    2,
  );
  await train(cfg, out);
  const ran = new Set(fs.readFileSync(calls, 'utf8').trim().split('\n'));
  const made = fs.readFileSync(makes, 'utf8').trim().split('\n');
  return { weights: finalWeights(cfg.runDir), input: lines.find((l) => l.includes('input')) ?? '', ran, made };
}

test('get() in 2 threads, and in 3, trains to the bits of get() in the coordinator thread', async () => {
  const here = await run('main-thread', null);
  assert.deepEqual([...here.ran], ['0'], 'without data.threads, get() runs in the coordinator thread');
  // 3 threads split a step's 8 rows 3 + 3 + 2, across the 2 workers' shards of 4.
  for (const threads of [2, 3]) {
    const threaded = await run(`threads-${threads}`, threads);
    assert.ok(threaded.weights.equals(here.weights), `the weights of ${threads} threads differ`);
    const off = [...threaded.ran].filter((t) => t !== '0'); // the coordinator reads sample 0 (the shapes) itself
    assert.equal(off.length, threads, `get() ran in threads ${[...threaded.ran].join(', ')}`);
    assert.equal(threaded.made.length, 1 + threads, `the default export was called ${threaded.made.length} times: once in the coordinator, once a thread`);
    assert.match(threaded.input, new RegExp(`map-style module .*samples\\.ts: 40 samples, read on demand, get in ${threads} threads, 2 steps ahead`));
  }
});

test('a get() that throws in a thread is the E_DATA of the coordinator thread, naming module and sample', async () => {
  process.env.MAP_STYLE_THROW_AT = '7';
  try {
    const failure = (name: string, threads: number | null) =>
      run(name, threads).then(
        () => assert.fail('the run should fail'),
        (e: unknown) => e as Error & { code: string },
      );
    const here = await failure('throws-main', null);
    const threaded = await failure('throws-threads', 2);
    assert.equal(threaded.code, 'E_DATA');
    assert.equal(threaded.message, here.message);
    assert.match(threaded.message, /^data\.train: module .*samples\.ts: sample 7: get\(7\) threw: sample 7 is broken in data\.train$/);
  } finally {
    delete process.env.MAP_STYLE_THROW_AT;
  }
});
