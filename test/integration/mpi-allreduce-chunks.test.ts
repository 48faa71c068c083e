// The gradient allreduce in fused chunks (MGPU_ALLREDUCE_CHUNK) gives the bits of one machine:
// 2 machines x 1 worker, the 83 trainable floats cut into chunks of 10 (the last one 3 floats,
// the cuts across the layers' kernels and biases), train to the same bytes as 1 machine x
// 2 workers, which sums on its slab and has no allreduce. A chunk reduced twice, skipped, cut at
// the wrong offset or summed before its local sum was complete would change the weights. With
// 3 machines the order of the machines' additions is the allreduce's: chunks of 10 must give
// the bytes of one allreduce of the whole sum (MGPU_ALLREDUCE_CHUNK=0, as before the overlap).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-allreduce-chunks');
const raw = {
  model: { module: writeModelModule(dir, 'mlp') }, // 6-8-3: 83 trainable floats
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 5) },
  training: { batchSize: 10, steps: 8, seed: 3 },
  optimizer: { name: 'adam', learningRate: 0.05 },
  log: { every: 1000 },
};
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('2 machines x 1 worker, allreduce in chunks of 10 floats: the bytes of 1 machine x 2 workers', async (t) => {
  if (!needMpi(t)) return;
  const two = path.join(dir, 'two-machines');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', { ...raw, runDir: two, devices: { simulate: 1, backend: 'cpu' } })], {
    env: { MGPU_ALLREDUCE_CHUNK: '10' },
  });
  assert.equal(r.code, 0, r.stderr);
  const one = path.join(dir, 'one-machine');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', { ...raw, runDir: one, devices: { simulate: 2, backend: 'cpu' } })]);
  assert.equal(s.code, 0, s.stderr);
  assert.ok(bytes(finalFloats(two)).equals(bytes(finalFloats(one))), 'M=2 x N=1 in chunks of 10 differs from M=1 x N=2');
});

test('3 machines x 1 worker: chunks of 10 floats give the bytes of one allreduce of the whole sum', async (t) => {
  if (!needMpi(t)) return;
  const run = async (chunk: string) => {
    const runDir = path.join(dir, `three-${chunk}`);
    const file = writeConfigFile(dir, `three-${chunk}`, {
      ...raw,
      training: { ...raw.training, batchSize: 9 },
      runDir,
      devices: { simulate: 1, backend: 'cpu' },
    });
    const r = await runMpi(3, ['train', file], { env: { MGPU_ALLREDUCE_CHUNK: chunk } });
    assert.equal(r.code, 0, r.stderr);
    return bytes(finalFloats(runDir));
  };
  assert.ok((await run('10')).equals(await run('0')), 'M=3 in chunks of 10 differs from M=3 in one allreduce');
});
