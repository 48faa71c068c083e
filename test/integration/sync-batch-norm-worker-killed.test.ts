// training.syncBatchNorm keeps the engine's guarantee for a worker SIGKILLed in the middle of a
// run: its peers, blocked in the BatchNorm exchange waiting for it (or about to be), are answered
// `abandoned` and finish the step on their own statistics; the rank is restarted, the step runs
// again, and the run ends bit-identical to an uninterrupted one. Nothing hangs: every wait is
// on a process that is there or on a socket that closes. Three workers, so that two survivors
// wait on the dead one.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train, type TrainResult } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { messageOf } from '../../src/shared/errors.ts';
import { readMetrics, waitForStep, workerPids } from '../helpers/chaos.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn-killed');
const raw = (run: string) => ({
  name: `sync-bn-killed-${run}`,
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 200, 'onehot', 17) },
  training: { batchSize: 12, steps: 60, seed: 7, syncBatchNorm: true },
  optimizer: { name: 'adam', learningRate: 0.01 },
  log: { every: 1 },
});
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('syncBatchNorm, a worker SIGKILLed: restarted, its step runs again, final weights bit-identical', async (t) => {
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (l) => void lines.push(l), done() {} };
  const clean = await train(buildConfig(dir, raw('clean'), 3, 'wasm'), { step() {}, line() {}, done() {} });
  const cfg = buildConfig(dir, raw('killed'), 3, 'wasm');
  const running = train(cfg, out).then(
    (r) => ({ r, err: null }),
    (err: unknown) => ({ r: null as TrainResult | null, err }),
  );
  const metrics = path.join(cfg.runDir, 'metrics.jsonl');
  const at = await waitForStep(metrics, 5);
  const pid = workerPids(process.pid).get(1);
  assert.ok(pid, 'no rank-1 worker');
  process.kill(pid, 'SIGKILL');
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${lines.join('\n')}`);
  t.diagnostic(`killed rank 1 (pid ${pid}) after step ${at}; ${lines.filter((l) => /restart|failed/.test(l)).join(' | ')}`);
  assert.equal(r!.steps, 60);
  assert.equal(r!.restarts, 1, 'only the killed rank was restarted (its peers were not taken for stalled)');
  const failures = readMetrics(metrics).filter((l) => l.type === 'failure');
  assert.equal(failures.length, 1, JSON.stringify(failures));
  assert.deepEqual(failures[0]!.ranks, [1]);
  assert.ok(bytes(r!.weights).equals(bytes(clean.weights)), 'the restarted run is not bit-identical to the uninterrupted run');
  assert.deepEqual([...workerPids(process.pid).keys()], [], 'worker processes left after the run');
});
