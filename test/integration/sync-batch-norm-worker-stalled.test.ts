// training.syncBatchNorm and a worker that stops answering (SIGSTOP) in the middle of a run: its
// peers block in the BatchNorm exchange waiting for it, and their step deadlines fire as its
// does. A rank that waits on its peers is not the one stalling: its deadline is extended once,
// so only the stopped rank is named and killed; its peers are answered `abandoned`, the rank is
// restarted and the run ends bit-identical to an uninterrupted one.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { messageOf } from '../../src/shared/errors.ts';
import { isAlive, processState, readMetrics, waitFor, waitForStep, workerPids } from '../helpers/chaos.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn-stall');
const raw = (run: string) => ({
  name: `sync-bn-stall-${run}`,
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 200, 'onehot', 23) },
  training: { batchSize: 12, steps: 40, seed: 2, syncBatchNorm: true },
  optimizer: { name: 'momentum', learningRate: 0.1 },
  log: { every: 1 },
  reliability: { onWorkerFailure: 'restart', stallFactor: 3, stallMinSeconds: 1 },
});
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('syncBatchNorm, a worker SIGSTOPped: only it is named stalled and restarted, final weights bit-identical', async (t) => {
  const clean = await train(buildConfig(dir, raw('clean'), 3, 'wasm'), { step() {}, line() {}, done() {} });
  const cfg = buildConfig(dir, raw('stopped'), 3, 'wasm');
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (l) => void lines.push(l), done() {} };
  const running = train(cfg, out).then(
    (r) => ({ r, err: null }),
    (err: unknown) => ({ r: null, err }),
  );
  const metrics = path.join(cfg.runDir, 'metrics.jsonl');
  // Past the 5 warm-up steps, so the deadline is the stall deadline and not stepTimeout (600 s).
  const at = await waitForStep(metrics, 10);
  const pid = workerPids(process.pid).get(1);
  assert.ok(pid, 'no rank-1 worker');
  process.kill(pid, 'SIGSTOP');
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${lines.join('\n')}`);
  t.diagnostic(`SIGSTOP to rank 1 (pid ${pid}) after step ${at}; ${lines.filter((l) => /stalled|restart/.test(l)).join(' | ')}`);
  const failures = readMetrics(metrics).filter((l) => l.type === 'failure');
  const stalled = failures.filter((l) => /stalled/.test(l.message ?? ''));
  assert.ok(stalled.length >= 1, JSON.stringify(failures));
  // (On a loaded machine a slow but healthy step may be called stalled too; the stopped rank is the first.)
  assert.deepEqual(stalled[0]!.ranks, [1], `the first rank named stalled: ${JSON.stringify(failures)}`);
  assert.ok(!failures.some((l) => l.step === stalled[0]!.step && l.ranks?.[0] !== 1), `a waiting peer was killed too: ${JSON.stringify(failures)}`);
  await waitFor(() => !isAlive(pid), 5000, `the stopped worker ${pid} to be gone (state ${processState(pid)})`);
  assert.equal(r!.steps, 40);
  assert.ok(bytes(r!.weights).equals(bytes(clean.weights)), 'the run after the stall is not bit-identical to the uninterrupted run');
  assert.deepEqual([...workerPids(process.pid).keys()], [], 'worker processes left after the run');
});
