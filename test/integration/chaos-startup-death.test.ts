// A worker that dies while the run starts (SIGKILLed as soon as it is spawned, while it loads
// tfjs and builds the model), under each reliability.onWorkerFailure:
//   restart  it is restarted like a worker that dies in a step, counted in maxRestarts, and the
//            run ends with the weights of a run without the failure, bit for bit;
//            with no restart left, the run fails saying so;
//   reshard  the run starts with the survivors;
// and a worker that fails to start the same way twice (a model module that exits the process)
// is not retried forever: the run fails with that error, exit 1, as before; a model module that
// throws is a user error (E_MODEL, exit 2) and not retried at all.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { train, type TrainResult } from '../../src/coordinator/train.ts';
import { MgpuError, messageOf } from '../../src/shared/errors.ts';
import { readMetrics, waitFor, workerPids } from '../helpers/chaos.ts';
import { buildConfig, CLASSES, FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-startup');
const mlp = writeModelModule(dir, 'mlp');
const data = writeDataset(dir, 'train', 60, 'onehot', 12);
const raw = (name: string, reliability: Record<string, unknown>, module = mlp) => ({
  name,
  model: { module },
  loss: 'categoricalCrossentropy',
  data: { train: data },
  training: { batchSize: 10, steps: 12, seed: 5 },
  optimizer: { name: 'momentum', learningRate: 0.1 },
  reliability,
});
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

/** SIGKILLs the worker of `rank` as soon as it exists: it is still loading tfjs then. */
async function killWhenSpawned(rank: number): Promise<number> {
  const pid = await waitFor(() => workerPids(process.pid).get(rank), 30_000, `the worker of rank ${rank} to be spawned`);
  process.kill(pid, 'SIGKILL');
  return pid;
}

const noWorkersLeft = () => assert.deepEqual([...workerPids(process.pid).entries()], [], 'worker processes left after the run');
const failures = (runDir: string) => readMetrics(path.join(runDir, 'metrics.jsonl')).filter((l) => l.type === 'failure');

test('restart: a worker killed during start-up is restarted, counted, and the run ends bit-identical', async (t) => {
  const clean = await train(buildConfig(dir, raw('clean', {}), 2), recorder());
  const cfg = buildConfig(dir, raw('restart', { onWorkerFailure: 'restart', maxRestarts: 2 }), 2);
  const out = recorder();
  const running = start(cfg, out);
  const pid = await killWhenSpawned(1);
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${out.lines.join('\n')}`);
  t.diagnostic(`killed rank 1 (pid ${pid}); ${out.lines.filter((l) => /start-up|restart/.test(l)).join(' | ')}`);
  assert.ok(
    out.lines.some((l) => /^start-up: worker rank 1 \(GPU 1\) failed in init: the worker process was killed by SIGKILL$/.test(l)),
    out.lines.join('\n'),
  );
  assert.ok(
    out.lines.some((l) => /^restarting rank 1 on simulated GPU 1 \(CPU\) \(restart 1 of 2\) during start-up$/.test(l)),
    out.lines.join('\n'),
  );
  assert.equal(r!.steps, 12);
  assert.equal(r!.restarts, 1, 'the start-up restart is counted');
  const f = failures(cfg.runDir);
  assert.equal(f.length, 1, JSON.stringify(f));
  assert.deepEqual([f[0]!.step, f[0]!.ranks, f[0]!.action], [0, [1], 'restart']);
  assert.ok(bytes(r!.weights).equals(bytes(clean.weights)), 'the run with a restart at start-up is not bit-identical to the clean run');
  noWorkersLeft();
});

test('restart with no restart left: the start-up failure ends the run, saying so', async () => {
  const cfg = buildConfig(dir, raw('no-restarts', { onWorkerFailure: 'restart', maxRestarts: 0 }), 2);
  const out = recorder();
  const running = start(cfg, out);
  await killWhenSpawned(1);
  const { r, err } = await running;
  assert.equal(r, null, 'the run completed');
  assert.ok(err instanceof MgpuError, String(err));
  assert.equal(err.code, 'E_WORKER');
  assert.equal(err.exitCode, 1);
  assert.match(
    err.message,
    /^worker rank 1 \(GPU 1\) failed in init: the worker process was killed by SIGKILL; reliability\.maxRestarts \(0\) restarts already used$/,
  );
  noWorkersLeft();
});

test('reshard: a worker killed during start-up is retired and the run starts with the survivors', async (t) => {
  const cfg = buildConfig(dir, raw('reshard', { onWorkerFailure: 'reshard' }), 3);
  const out = recorder();
  const running = start(cfg, out);
  await killWhenSpawned(1);
  const { r, err } = await running;
  assert.equal(err, null, `the run failed: ${messageOf(err)}\n${out.lines.join('\n')}`);
  t.diagnostic(out.lines.filter((l) => /start-up|retired|batch/.test(l)).join(' | '));
  assert.ok(out.lines.includes('rank 1 retired; the run starts with the other ranks'), out.lines.join('\n'));
  assert.ok(
    out.lines.some((l) => /rank 1: simulated GPU 1 \(CPU\) -> retired: it failed to start/.test(l)),
    out.lines.join('\n'),
  );
  assert.ok(
    out.lines.some((l) => /batch\s+global 10 = 2 workers x 5 per worker/.test(l)),
    out.lines.join('\n'),
  );
  assert.equal(r!.steps, 12);
  assert.equal(r!.restarts, 0);
  assert.ok(r!.weights.every(Number.isFinite));
  const f = failures(cfg.runDir);
  assert.deepEqual(
    f.map((l) => [l.step, l.ranks, l.action]),
    [[0, [1], 'reshard']],
  );
  noWorkersLeft();
});

test('a worker that fails to start the same way twice is not retried again: the run fails with that error', async (t) => {
  // Rank 1 exits while building the model, every time.
  const exits = path.join(dir, 'rank1-exits.mjs');
  fs.writeFileSync(
    exits,
    `export default (tf, ctx) => {
  if (ctx.rank === 1) process.exit(3);
  return tf.sequential({ layers: [tf.layers.dense({ inputShape: [${FEATURES}], units: ${CLASSES}, activation: 'softmax' })] });
};\n`,
  );
  const out = recorder();
  const { r, err } = await start(buildConfig(dir, raw('exits', { onWorkerFailure: 'restart', maxRestarts: 3 }, exits), 2), out);
  t.diagnostic(`${messageOf(err)} | ${out.lines.filter((l) => /start-up|restart|twice/.test(l)).join(' | ')}`);
  assert.equal(r, null, 'the run completed');
  assert.ok(err instanceof MgpuError, String(err));
  assert.equal(err.code, 'E_WORKER');
  assert.equal(err.exitCode, 1);
  assert.equal(err.message, 'worker rank 1 (GPU 1) failed in init (restart): the worker process exited with code 3');
  assert.equal(out.lines.filter((l) => /^restarting rank 1/.test(l)).length, 1, 'restarted once, not up to maxRestarts');
  assert.ok(out.lines.includes('rank 1 failed to start twice with the same error; it is not retried'), out.lines.join('\n'));
  noWorkersLeft();

  // A builder that throws is the user's error: named, exit 2, never retried.
  const throws = path.join(dir, 'throws.mjs');
  fs.writeFileSync(throws, "export default () => { throw new Error('no such layer'); };\n");
  const out2 = recorder();
  const second = await start(buildConfig(dir, raw('throws', { onWorkerFailure: 'restart' }, throws), 2), out2);
  assert.ok(second.err instanceof MgpuError, String(second.err));
  assert.equal(second.err.code, 'E_MODEL');
  assert.equal(second.err.exitCode, 2);
  assert.match(second.err.message, /threw while building the model: no such layer/);
  assert.ok(!out2.lines.some((l) => /restart/.test(l)), out2.lines.join('\n'));
  noWorkersLeft();
});
