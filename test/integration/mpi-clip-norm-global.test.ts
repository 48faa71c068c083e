// clipNorm on several machines clips by the norm of the whole cluster's summed gradient, taken
// after the allreduce: 2 machines x 1 worker give the bits of 1 machine x 2 workers, with most
// steps clipped (a machine's own norm would scale each machine's update differently).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';

const CLIP = 0.3;
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('clipNorm: 2 machines x 1 worker and 1 machine x 2 workers give the same bits', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-clip');
  const raw = (runDir: string, perMachine: number) => ({
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 9) },
    training: { batchSize: 10, steps: 5, seed: 6, clipNorm: CLIP },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    devices: { simulate: perMachine, backend: 'cpu' },
    log: { every: 1 },
    runDir,
  });
  const two = path.join(dir, 'two');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', raw(two, 1))]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const one = path.join(dir, 'one');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', raw(one, 2))]);
  assert.equal(s.code, 0, s.stderr);
  // grad_norm is the norm before clipping: the steps above CLIP were clipped.
  const norms = readMetrics(path.join(one, 'metrics.jsonl'))
    .filter((l) => l.type === 'train')
    .map((l) => l.grad_norm as number);
  t.diagnostic(`grad_norm ${norms.map((n) => n.toFixed(3)).join(' ')}`);
  if (norms.filter((n) => n > CLIP).length < 3) throw new Error(`fewer than 3 of ${norms.length} steps clipped at ${CLIP}: the test would prove little`);
  assert.ok(bytes(finalFloats(two)).equals(bytes(finalFloats(one))), 'M=2 x N=1 differs from M=1 x N=2 with clipNorm');
});
