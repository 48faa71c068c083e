// Fixed shard sizes and a fixed rank order make a run a pure function of (config, seed, N):
// two runs with the same seed on the same N give bit-identical final weights, and a different
// seed (other initial weights, other data order) gives different ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('det');
const raw = (seed: number, run: string) => ({
  name: `det-${seed}-${run}`,
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 37, 'onehot', 101) },
  training: { batchSize: 10, epochs: 2, seed },
  optimizer: { name: 'adam', learningRate: 0.01 },
});

const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('deterministic: same seed and N -> bit-identical weights; another seed -> different weights', async (t) => {
  const a = await train(buildConfig(dir, raw(4, 'a'), 3), silent);
  const b = await train(buildConfig(dir, raw(4, 'b'), 3), silent);
  assert.equal(a.weights.length, b.weights.length);
  let differing = 0;
  for (let i = 0; i < a.weights.length; i++) if (!Object.is(a.weights[i], b.weights[i])) differing++;
  t.diagnostic(`same seed: ${differing} of ${a.weights.length} values differ`);
  assert.ok(bytes(a.weights).equals(bytes(b.weights)), `two runs with seed 4 on N=3: ${differing} values differ`);
  assert.ok(Object.is(a.finalLoss, b.finalLoss), `final loss ${a.finalLoss} vs ${b.finalLoss}`);

  const c = await train(buildConfig(dir, raw(5, 'c'), 3), silent);
  assert.ok(!bytes(a.weights).equals(bytes(c.weights)), 'seed 5 gave the weights of seed 4');
});
