// A worker that stops answering (SIGSTOP: alive, holding its pipe, doing nothing): once a few
// steps are timed, the step deadline (stallFactor x the median step, never below
// stallMinSeconds) fires; the message names the rank, its GPU, the phase and how long it
// waited; the stalled process is killed (it is never SIGCONTed), and under the restart policy
// the run completes with the weights of an uninterrupted run.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { isAlive, processState, readMetrics, waitFor, waitForStep, workerPids } from '../helpers/chaos.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { messageOf } from '../../src/shared/errors.ts';

const dir = tempDir('chaos-stall');
const raw = (run: string) => ({
  name: `stall-${run}`,
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 200, 'onehot', 23) },
  training: { batchSize: 10, steps: 80, seed: 2 },
  optimizer: { name: 'momentum', learningRate: 0.1 },
  log: { every: 1 },
  reliability: { onWorkerFailure: 'restart', stallFactor: 3, stallMinSeconds: 1 },
});
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('stall: a SIGSTOPped worker misses its deadline, is named and killed, and the restarted run completes', async (t) => {
  const clean = await train(buildConfig(dir, raw('clean'), 2), { step() {}, line() {}, done() {} });
  const cfg = buildConfig(dir, raw('stopped'), 2);
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
  t.diagnostic(`SIGSTOP to rank 1 (pid ${pid}) after step ${at}`);
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${lines.join('\n')}`);
  const stall = lines.find((l) => /worker rank 1 \(GPU 1\) failed in step \d+: stalled/.test(l));
  t.diagnostic(stall ?? lines.join(' | '));
  assert.ok(stall, `no stall message:\n${lines.join('\n')}`);
  const m = /failed in step (\d+): stalled: no reply after (\d+\.\d) s \(deadline (\d+\.\d) s\)/.exec(stall);
  assert.ok(m, stall);
  const [step, waited, deadline] = [Number(m[1]), Number(m[2]), Number(m[3])];
  assert.ok(step >= at && step < 80, `stalled in step ${step}`);
  assert.ok(deadline >= 1, `deadline ${deadline} s is below stallMinSeconds`);
  assert.ok(waited >= deadline - 0.05, `waited ${waited} s, deadline ${deadline} s`);
  // (On a loaded machine a slow but healthy step may be called stalled too: more lines, all restarts.)
  const failures = readMetrics(metrics).filter((l) => l.type === 'failure');
  const first = failures.find((l) => /stalled/.test(l.message ?? '') && l.step === step);
  assert.ok(first, JSON.stringify(failures));
  assert.deepEqual(first.ranks, [1]);
  assert.ok(
    failures.every((l) => l.action === 'restart'),
    JSON.stringify(failures),
  );
  // The stopped process was killed, not left stopped.
  await waitFor(() => !isAlive(pid), 5000, `the stopped worker ${pid} to be gone (state ${processState(pid)})`);
  assert.equal(r!.steps, 80);
  assert.ok(r!.restarts >= 1);
  assert.ok(bytes(r!.weights).equals(bytes(clean.weights)), 'the run after the stall is not bit-identical to the uninterrupted run');
  assert.deepEqual([...workerPids(process.pid).keys()], [], 'worker processes left after the run');
});
