// A worker process SIGKILLed in the middle of a run, under each reliability.onWorkerFailure:
//   restart  a new worker on the same GPU, the interrupted step runs again, and the final
//            weights are bit-identical to those of an uninterrupted run (same seed, same N);
//   reshard  the survivors share the same global batch; the weights equal the uninterrupted
//            run's to float32 rounding (the split differs, so not bit for bit);
//   abort    exit 1 naming the rank, GPU and phase; the last completed step is in a checkpoint
//            that --resume continues (bit-identically);
// and reliability.maxRestarts: the restart after the last one allowed stops the run, saying so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train, type TrainResult } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { MgpuError, messageOf } from '../../src/shared/errors.ts';
import { checkpointSteps, finalWeights, readMetrics, runCliAsync, startCli, waitFor, waitForStep, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { assertWeightsClose, buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-death');
const bnModel = writeModelModule(dir, 'batchnorm');
const mlpModel = writeModelModule(dir, 'mlp');
const data = writeDataset(dir, 'train', 200, 'onehot', 17);

const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

function recorder(): Progress & { lines: string[] } {
  const lines: string[] = [];
  return { lines, step() {}, line: (t) => void lines.push(t), done() {} };
}

/** Runs train() in this process; the promise never rejects (an error comes back as `err`). */
function start(cfg: ReturnType<typeof buildConfig>, out: Progress) {
  return train(cfg, out).then(
    (r) => ({ r, err: null }),
    (err: unknown) => ({ r: null as TrainResult | null, err }),
  );
}

/** Waits for `step` steps, then SIGKILLs the worker of `rank` (a child of this process). */
async function killRankAt(metrics: string, step: number, rank: number): Promise<{ pid: number; at: number }> {
  const at = await waitForStep(metrics, step);
  const pid = workerPids(process.pid).get(rank);
  assert.ok(pid, `no worker process of rank ${rank} among the children of ${process.pid}`);
  process.kill(pid, 'SIGKILL');
  return { pid, at };
}

const noWorkersLeft = () => assert.deepEqual([...workerPids(process.pid).entries()], [], 'worker processes left after the run');

test('restart: a SIGKILLed worker is replaced, its step runs again, final weights bit-identical', async (t) => {
  const raw = (run: string) => ({
    name: `restart-${run}`,
    model: { module: bnModel },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 80, seed: 7 },
    optimizer: { name: 'adam', learningRate: 0.01 },
    log: { every: 1 },
  });
  const clean = await train(buildConfig(dir, raw('clean'), 2), recorder());
  const cfg = buildConfig(dir, raw('killed'), 2);
  const out = recorder();
  const running = start(cfg, out);
  const { pid, at } = await killRankAt(path.join(cfg.runDir, 'metrics.jsonl'), 5, 1);
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${out.lines.join('\n')}`);
  t.diagnostic(`killed rank 1 (pid ${pid}) after step ${at}; ${out.lines.filter((l) => /restart|failed/.test(l)).join(' | ')}`);
  assert.equal(r!.steps, 80);
  assert.equal(r!.restarts, 1);
  const failures = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).filter((l) => l.type === 'failure');
  assert.equal(failures.length, 1, JSON.stringify(failures));
  assert.deepEqual(failures[0]!.ranks, [1]);
  assert.equal(failures[0]!.action, 'restart');
  assert.ok(failures[0]!.step > at && failures[0]!.step <= 80, `failure at step ${failures[0]!.step}`);
  assert.match(failures[0]!.message!, /worker rank 1 \(GPU 1\) failed in step \d+: the worker process was killed by SIGKILL/);
  assert.ok(
    out.lines.some((l) => new RegExp(`restarting rank 1 on simulated GPU 1 .*step ${failures[0]!.step} runs again`).test(l)),
    out.lines.join('\n'),
  );
  assert.ok(bytes(r!.weights).equals(bytes(clean.weights)), 'the restarted run is not bit-identical to the uninterrupted run');
  assert.ok(Object.is(r!.finalLoss, clean.finalLoss), `final loss ${r!.finalLoss} vs ${clean.finalLoss}`);
  noWorkersLeft();
});

test('reshard: the survivors of a SIGKILL share the global batch; weights match the uninterrupted run (rtol 1e-4)', async (t) => {
  const raw = (run: string) => ({
    name: `reshard-${run}`,
    model: { module: mlpModel },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 80, seed: 7 },
    optimizer: { name: 'momentum', learningRate: 0.1 },
    log: { every: 1 },
    reliability: { onWorkerFailure: 'reshard' },
  });
  const clean = await train(buildConfig(dir, raw('clean'), 3), recorder());
  const cfg = buildConfig(dir, raw('killed'), 3);
  const out = recorder();
  const running = start(cfg, out);
  const { at } = await killRankAt(path.join(cfg.runDir, 'metrics.jsonl'), 5, 1);
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${out.lines.join('\n')}`);
  t.diagnostic(`killed rank 1 after step ${at}; ${out.lines.filter((l) => /retired|failed/.test(l)).join(' | ')}`);
  assert.equal(r!.steps, 80);
  assert.equal(r!.restarts, 0);
  assert.ok(
    out.lines.some((l) => /rank 1 retired; ranks 0, 2 share the global batch 10/.test(l)),
    out.lines.join('\n'),
  );
  const failures = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).filter((l) => l.type === 'failure');
  assert.equal(failures.length, 1, JSON.stringify(failures));
  assert.equal(failures[0]!.action, 'reshard');
  assert.deepEqual(failures[0]!.ranks, [1]);
  assertWeightsClose(t, r!.weights, clean.weights, 'reshard vs uninterrupted', { rtol: 1e-4, atol: 1e-6 });
  noWorkersLeft();
});

test('maxRestarts: the failure after the last allowed restart stops the run, saying so', async (t) => {
  const cfg = buildConfig(
    dir,
    {
      name: 'max-restarts',
      model: { module: mlpModel },
      loss: 'categoricalCrossentropy',
      data: { train: data },
      training: { batchSize: 10, steps: 5000, seed: 7 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
      log: { every: 1 },
      reliability: { onWorkerFailure: 'restart', maxRestarts: 1 },
    },
    2,
  );
  const metrics = path.join(cfg.runDir, 'metrics.jsonl');
  const out = recorder();
  const running = start(cfg, out);
  const first = await killRankAt(metrics, 5, 1);
  // The replacement: a new rank-1 process that has trained a few steps.
  const failed = await waitFor(() => readMetrics(metrics).find((l) => l.type === 'failure'), 60_000, 'the failure line');
  await waitForStep(metrics, failed.step + 5);
  const second = workerPids(process.pid).get(1);
  assert.ok(second && second !== first.pid, `the restarted rank 1 has pid ${second}, the killed one had ${first.pid}`);
  process.kill(second, 'SIGKILL');
  const { r, err } = await running;
  assert.equal(r, null, 'the run completed');
  t.diagnostic(messageOf(err));
  assert.ok(err instanceof MgpuError, String(err));
  assert.equal(err.code, 'E_WORKER');
  assert.equal(err.exitCode, 1);
  assert.match(
    err.message,
    /worker rank 1 \(GPU 1\) failed in step \d+: the worker process was killed by SIGKILL; reliability\.maxRestarts \(1\) restarts already used/,
  );
  assert.match(err.hint ?? '', /the last completed step \(\d+\) is in .*checkpoints/);
  assert.ok(checkpointSteps(cfg.runDir).length > 0, 'no checkpoint was written');
  noWorkersLeft();
});

test('abort: exit 1 naming rank, GPU and phase; the checkpoint of the last completed step resumes bit-identically', async (t) => {
  const config = (policy: string) => ({
    model: { module: bnModel },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 150, seed: 9 },
    optimizer: { name: 'momentum', learningRate: 0.05 },
    log: { every: 1 },
    reliability: { onWorkerFailure: policy },
  });
  const base = ['--simulate', '2', '--backend', 'cpu'];
  const cleanDir = path.join(dir, 'runs', 'abort-clean');
  const clean = await runCliAsync(['train', writeConfigFile(dir, 'abort-clean', config('restart')), ...base, '--run-dir', cleanDir]);
  assert.equal(clean.code, 0, clean.stderr);

  const runDir = path.join(dir, 'runs', 'abort');
  const file = writeConfigFile(dir, 'abort', config('abort'));
  const cli = startCli(['train', file, ...base, '--run-dir', runDir]);
  await waitForStep(path.join(runDir, 'metrics.jsonl'), 5);
  const pid = workerPids(cli.child.pid!).get(1);
  assert.ok(pid, 'no rank-1 worker under the CLI process');
  process.kill(pid, 'SIGKILL');
  const r = await cli.done;
  t.diagnostic(
    r.stderr
      .split('\n')
      .filter((l) => l.startsWith('error') || l.includes('hint'))
      .join(' | '),
  );
  assert.equal(r.code, 1, r.stderr);
  const m = /error E_WORKER: worker rank 1 \(GPU 1\) failed in step (\d+): the worker process was killed by SIGKILL/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const lastDone = Number(m[1]) - 1; // step numbers are 1-based, as the train lines: the one before the failed step completed
  assert.match(r.stderr, new RegExp(`the last completed step \\(${lastDone}\\) is in .*step-${lastDone}`));
  assert.ok(checkpointSteps(runDir).includes(lastDone), `checkpoints: ${checkpointSteps(runDir)}; expected step-${lastDone}`);
  assert.ok(!fs.existsSync(path.join(runDir, 'final')), 'an aborted run wrote a final model');

  const resumed = await runCliAsync(['train', file, ...base, '--run-dir', runDir, '--resume']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`resuming from .*step-${lastDone} at step ${lastDone} of 150`));
  assert.ok(finalWeights(runDir).equals(finalWeights(cleanDir)), 'the resumed run is not bit-identical to the uninterrupted run');
});
