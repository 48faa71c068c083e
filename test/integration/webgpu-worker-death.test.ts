// A webgpu worker SIGKILLed mid-run under onWorkerFailure: restart is replaced by a new one on
// the same adapter (which starts Dawn again), the interrupted step runs again, and the final
// weights are bit-identical to those of an uninterrupted run.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train, type TrainResult } from '../../src/coordinator/train.ts';
import { waitForStep, workerPids } from '../helpers/chaos.ts';
import { silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needWebgpu, webgpuConfig } from '../helpers/webgpu.ts';
import { messageOf } from '../../src/shared/errors.ts';

const dir = tempDir('webgpu-death');
const raw = (run: string) => ({
  name: run,
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 60, 'onehot', 9) },
  training: { batchSize: 10, steps: 40, seed: 2 },
  optimizer: { name: 'momentum', learningRate: 0.1 },
  log: { every: 1 },
  reliability: { onWorkerFailure: 'restart' },
});

test('webgpu restart: a SIGKILLed worker is replaced and the run ends bit-identical', async (t) => {
  if (!(await needWebgpu(t))) return;
  const clean = await train(webgpuConfig(dir, raw('clean'), 2), silent);
  const cfg = webgpuConfig(dir, raw('killed'), 2);
  const running = train(cfg, silent).then(
    (r) => ({ r, err: null }),
    (err: unknown) => ({ r: null as TrainResult | null, err }),
  );
  await waitForStep(path.join(cfg.runDir, 'metrics.jsonl'), 4);
  const pid = workerPids(process.pid).get(1);
  assert.ok(pid, 'no worker of rank 1');
  process.kill(pid, 'SIGKILL');
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}`);
  assert.equal(r!.restarts, 1);
  assert.equal(r!.steps, 40);
  assert.ok(Buffer.from(r!.weights.buffer).equals(Buffer.from(clean.weights.buffer)), 'the restarted run differs from the uninterrupted one');
  assert.deepEqual([...workerPids(process.pid).entries()], [], 'worker processes left after the run');
});
