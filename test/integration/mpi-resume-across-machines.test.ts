// A checkpoint written by 2 machines resumes on 1, and one written on 1 machine resumes on 2:
// the result is the uninterrupted run's, bit for bit (2 workers in all each time, so the sums
// are the same), and only rank 0 wrote the run directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-resume');
const raw = {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 2) },
  training: { batchSize: 8, steps: 12, seed: 4 },
  optimizer: { name: 'adam', learningRate: 0.01 },
  checkpoint: { every: 6, keep: 5 },
  log: { every: 1 },
};
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);
const onMachines = (m: number, runDir: string, args: string[] = []) => {
  const file = writeConfigFile(dir, path.basename(runDir), { ...raw, runDir, devices: { simulate: m === 2 ? 1 : 2, backend: 'cpu' } });
  return m === 2 ? runMpi(2, ['train', file, ...args]) : runCliAsync(['train', file, ...args]);
};

/** A new run directory holding only the step-6 checkpoint of `from`: a run stopped there. */
function stoppedAt6(from: string, to: string): void {
  fs.mkdirSync(path.join(to, 'checkpoints'), { recursive: true });
  fs.cpSync(path.join(from, 'checkpoints', 'step-6'), path.join(to, 'checkpoints', 'step-6'), { recursive: true });
}

test('2 machines -> 1 machine and 1 machine -> 2 machines: bit-identical to the uninterrupted run', async (t) => {
  if (!needMpi(t)) return;
  const full2 = path.join(dir, 'full-2');
  const r = await onMachines(2, full2);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(checkpointSteps(full2), [6, 12]);
  assert.equal(readMetrics(path.join(full2, 'metrics.jsonl')).filter((l) => l.type === 'train').length, 12, 'rank 0 alone writes metrics.jsonl');
  const full1 = path.join(dir, 'full-1');
  assert.equal((await onMachines(1, full1)).code, 0);
  assert.ok(bytes(finalFloats(full1)).equals(bytes(finalFloats(full2))));

  const to1 = path.join(dir, 'resume-on-1');
  stoppedAt6(full2, to1);
  const a = await onMachines(1, to1, ['--resume']);
  assert.equal(a.code, 0, a.stderr);
  assert.ok(bytes(finalFloats(to1)).equals(bytes(finalFloats(full2))), 'resumed on 1 machine: differs');

  const to2 = path.join(dir, 'resume-on-2');
  stoppedAt6(full1, to2);
  const b = await onMachines(2, to2, ['--resume']);
  assert.equal(b.code, 0, b.stderr);
  assert.ok(bytes(finalFloats(to2)).equals(bytes(finalFloats(full1))), 'resumed on 2 machines: differs');
});
