// The library API's train(): its callbacks get the figures metrics.jsonl gets, in order, once
// per step; a callback or the AbortSignal stops the run after the step with a checkpoint (the
// reason printed and logged), from which a resume ends bit-identical to the run never stopped;
// a callback that throws fails the run with E_CALLBACK naming it, the last step saved.
// 2 simulated GPUs on the cpu backend.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { formatError, MgpuError, train, type CheckpointInfo, type EvalFigures, type StepFigures, type TrainOptions, type TrainResult } from '../../src/api.ts';
import { checkpointSteps, readMetrics, workerPids } from '../helpers/chaos.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('api-callbacks');
const model = writeModelModule(dir, 'mlp');
const trainSet = writeDataset(dir, 'train', 24, 'onehot', 3);
const evalSet = writeDataset(dir, 'eval', 10, 'onehot', 4);
// 3 steps an epoch, 3 epochs: an eval every 3 steps, a checkpoint every 4, and at the end.
const config = (name: string, logEvery = 1) =>
  buildConfig(
    dir,
    {
      name,
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train: trainSet, eval: evalSet },
      training: { batchSize: 8, epochs: 3, seed: 5 },
      optimizer: { name: 'adam', learningRate: 0.01 },
      log: { every: logEvery },
      eval: { every: 3 },
      checkpoint: { every: 4, keep: 10 },
    },
    2,
  );

interface Recorded {
  calls: string[]; // e.g. S3 (onStepEnd after step 3), E3, C4, P3 (onEpochEnd), in order
  steps: StepFigures[];
  evals: EvalFigures[];
  checkpoints: CheckpointInfo[];
  epochs: StepFigures[];
  printed: string[];
}

/** Options that record every callback; `extra` adds to (or replaces) them. */
function recording(extra: Partial<TrainOptions> = {}): { rec: Recorded; opts: TrainOptions } {
  const rec: Recorded = { calls: [], steps: [], evals: [], checkpoints: [], epochs: [], printed: [] };
  const opts: TrainOptions = {
    print: (line) => rec.printed.push(line),
    onStepEnd: (f) => void (rec.calls.push(`S${f.step}`), rec.steps.push(f)),
    onEvalEnd: (f) => void (rec.calls.push(`E${f.step}`), rec.evals.push(f)),
    onCheckpoint: (c) => void (rec.calls.push(`C${c.step}`), rec.checkpoints.push(c)),
    onEpochEnd: (f) => void (rec.calls.push(`P${f.step}`), rec.epochs.push(f)),
  };
  for (const [k, fn] of Object.entries(extra)) {
    const mine = (opts as Record<string, unknown>)[k];
    (opts as Record<string, unknown>)[k] =
      typeof fn === 'function' && typeof mine === 'function'
        ? (...args: unknown[]) => {
            (mine as (...a: unknown[]) => unknown)(...args);
            return (fn as (...a: unknown[]) => unknown)(...args);
          }
        : fn;
  }
  return { rec, opts };
}

const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);
let full: Promise<TrainResult> | null = null;
/** The final weights of the run never stopped (the first test's run; trained here when it was not run). */
const uninterrupted = async () => (await (full ??= train(config('full'), { print: false }))).weights;

test('each callback is called in order with the figures metrics.jsonl gets', async () => {
  const cfg = config('full');
  const { rec, opts } = recording();
  const r = await (full = train(cfg, opts));
  assert.equal(r.stopped, null);
  assert.ok(r.modelPath && fs.existsSync(r.modelPath));
  assert.deepEqual(rec.calls, [
    'S1',
    'S2',
    'S3',
    'E3',
    'P3',
    'S4',
    'C4',
    'S5',
    'S6',
    'E6',
    'P6',
    'S7',
    'S8',
    'C8',
    'S9',
    'P9',
    'E9',
    'C9', // after the last step: the final evaluation and checkpoint
  ]);
  // With log.every 1, a metrics.jsonl train line is one step's figures: exactly what onStepEnd got.
  const lines = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')) as unknown as Array<Record<string, unknown>>;
  assert.deepEqual(
    rec.steps,
    lines.filter((l) => l.type === 'train'),
  );
  assert.deepEqual(
    rec.evals,
    lines.filter((l) => l.type === 'eval'),
  );
  assert.deepEqual(
    rec.checkpoints.map((c) => c.path),
    [4, 8, 9].map((k) => path.join(cfg.runDir, 'checkpoints', `step-${k}`)),
  );
  for (const c of rec.checkpoints) assert.ok(fs.existsSync(path.join(c.path, 'trainer-state.json')), `${c.path} is not a checkpoint`);
  assert.deepEqual(
    rec.checkpoints.map((c) => c.epoch),
    [1, 2, 3],
  );
  // An epoch's figures are over its steps: the loss is their mean, the epoch the one that ended.
  assert.deepEqual(
    rec.epochs.map((e) => [e.epoch, e.step]),
    [
      [0, 3],
      [1, 6],
      [2, 9],
    ],
  );
  rec.epochs.forEach((e, i) => {
    const mine = rec.steps.slice(3 * i, 3 * i + 3);
    const mean = mine.reduce((a, s) => a + s.loss, 0) / 3;
    assert.ok(Math.abs(e.loss - mean) < 1e-12, `epoch ${i}: loss ${e.loss}, the mean of its steps ${mean}`);
    assert.equal(e.lr, mine[2]!.lr);
    assert.ok(e.samples_per_sec > 0 && e.step_ms > 0);
  });
  assert.ok(
    rec.printed.some((l) => l.startsWith('model saved to ')),
    rec.printed.join('\n'),
  );
});

test('with log.every 2, onStepEnd still gets each step alone: a metrics line is the mean of its window', async () => {
  const cfg = config('every2', 2);
  const { rec, opts } = recording();
  await train(cfg, opts);
  const lines = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).filter((l) => l.type === 'train') as unknown as StepFigures[];
  assert.deepEqual(
    lines.map((l) => l.step),
    [2, 4, 6, 8, 9],
  );
  assert.deepEqual(
    rec.steps.map((f) => f.step),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  let from = 0;
  for (const line of lines) {
    const window = rec.steps.slice(from, line.step);
    from = line.step;
    const mean = (get: (f: StepFigures) => number) => window.reduce((a, f) => a + get(f), 0) / window.length;
    const at = window.at(-1)!;
    assert.ok(Math.abs(line.loss - mean((f) => f.loss)) < 1e-12, `step ${line.step}: loss ${line.loss}, the mean of its steps ${mean((f) => f.loss)}`);
    assert.ok(
      Math.abs(line.step_ms - mean((f) => f.step_ms)) <= 1.5e-3,
      `step ${line.step}: step_ms ${line.step_ms}, the mean of its steps ${mean((f) => f.step_ms)}`,
    );
    assert.deepEqual([line.epoch, line.lr, line.grad_norm], [at.epoch, at.lr, at.grad_norm]);
  }
  assert.notEqual(rec.steps[0]!.loss, rec.steps[1]!.loss, 'the steps got the same loss');
});

// Each callback can stop the run, by returning 'stop' or calling run.stop(reason).
const stops: Array<{ name: 'onStepEnd' | 'onEvalEnd' | 'onCheckpoint' | 'onEpochEnd'; after: number; reason: string; opts: Partial<TrainOptions> }> = [
  { name: 'onStepEnd', after: 5, reason: "it returned 'stop'", opts: { onStepEnd: (f) => (f.step === 5 ? 'stop' : undefined) } },
  { name: 'onEvalEnd', after: 3, reason: 'eval loss is low enough', opts: { onEvalEnd: (f, run) => run.stop('eval loss is low enough') } },
  {
    name: 'onCheckpoint',
    after: 4,
    reason: 'it called stop()',
    opts: {
      onCheckpoint: async (c, run) => {
        if (c.step === 4) run.stop();
      },
    },
  },
  {
    name: 'onEpochEnd',
    after: 6,
    reason: 'plateau',
    opts: {
      onEpochEnd: (f, run) => {
        if (f.epoch === 1) run.stop('plateau');
      },
    },
  },
];

for (const s of stops) {
  test(`${s.name} asks to stop: the run ends after step ${s.after} with a checkpoint, the reason printed and logged`, async () => {
    const cfg = config(`stop-${s.name}`);
    const { rec, opts } = recording(s.opts);
    const r = await train(cfg, opts);
    assert.deepEqual(r.stopped, { by: 'callback', callback: s.name, reason: s.reason });
    assert.equal(r.steps, s.after);
    assert.equal(r.modelPath, null);
    assert.ok(!fs.existsSync(path.join(cfg.runDir, 'final')), 'a stopped run wrote a final model');
    assert.ok(checkpointSteps(cfg.runDir).includes(s.after), `no checkpoint of step ${s.after}: ${checkpointSteps(cfg.runDir)}`);
    assert.ok(!rec.steps.some((f) => f.step > s.after), `steps after ${s.after} ran: ${rec.calls}`);
    // The stop's checkpoint is announced once, whether or not the interval had just written it.
    assert.equal(rec.checkpoints.filter((c) => c.step === s.after).length, 1, rec.calls.join(' '));
    const stopLine = `stopped by ${s.name} (${s.reason}) after step ${s.after}; checkpoint in ${path.join(cfg.runDir, 'checkpoints', `step-${s.after}`)} (continue with train(config, { resume: true }))`;
    assert.ok(rec.printed.includes(stopLine), `not printed: ${stopLine}\n${rec.printed.join('\n')}`);
    const last = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).at(-1) as unknown as Record<string, unknown>;
    assert.deepEqual(last, { type: 'stop', step: s.after, ranks: [], message: `stopped by ${s.name} (${s.reason})`, action: `checkpoint step-${s.after}` });
    if (s.name === 'onStepEnd') {
      const resumed = await train(cfg, { resume: true, print: false });
      assert.equal(resumed.steps, 9);
      assert.ok(bytes(resumed.weights).equals(bytes(await uninterrupted())), 'the resumed run is not bit-identical to the run never stopped');
    }
  });
}

test('a stop asked for after the last step changes nothing: the run ends as planned, with its model', async () => {
  const cfg = config('stop-last');
  const r = await train(cfg, { print: false, onEpochEnd: (f) => (f.epoch === 2 ? 'stop' : undefined) });
  assert.equal(r.stopped, null);
  assert.equal(r.steps, 9);
  assert.ok(r.modelPath && fs.existsSync(r.modelPath));
  assert.ok(r.eval, 'no final evaluation');
});

test('the AbortSignal stops the run after the step in progress, like Ctrl-C; the resume is bit-identical', async () => {
  const cfg = config('abort');
  const controller = new AbortController();
  const { rec, opts } = recording({
    signal: controller.signal,
    onStepEnd: (f) => {
      if (f.step === 4) controller.abort(new Error('the user had enough'));
    },
  });
  const r = await train(cfg, opts);
  assert.deepEqual(r.stopped, { by: 'abort', reason: 'the user had enough' });
  assert.equal(r.steps, 4);
  assert.ok(rec.printed.includes('the AbortSignal was aborted (the user had enough): finishing this step, then writing a checkpoint'), rec.printed.join('\n'));
  assert.ok(
    rec.printed.some((l) => l.startsWith('stopped by the AbortSignal (the user had enough) after step 4; checkpoint in ')),
    rec.printed.join('\n'),
  );
  assert.deepEqual(checkpointSteps(cfg.runDir), [4]);
  assert.equal((readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).at(-1) as { type: string }).type, 'stop');
  assert.deepEqual(workerPids(process.pid), new Map(), 'workers are left');
  const resumed = await train(cfg, { resume: true, print: false });
  assert.equal(resumed.steps, 9);
  assert.ok(bytes(resumed.weights).equals(bytes(await uninterrupted())), 'the resumed run is not bit-identical to the run never stopped');
});

test('an AbortSignal aborted before or during the start-up stops it at once: no step, no worker left', async () => {
  for (const when of ['before', 'during'] as const) {
    const cfg = config(`abort-${when}`);
    const controller = new AbortController();
    if (when === 'before') controller.abort();
    // During: as soon as a worker process has been spawned (it then takes a while to load tfjs).
    const watch =
      when === 'during'
        ? setInterval(() => {
            if (workerPids(process.pid).size > 0) controller.abort('go away');
          }, 5)
        : null;
    const { rec, opts } = recording({ signal: controller.signal });
    const r = await train(cfg, opts).finally(() => clearInterval(watch ?? undefined));
    if (when === 'during') {
      assert.ok(controller.signal.aborted, 'the start-up ended before a worker was seen');
      assert.ok(
        rec.printed.includes('the AbortSignal was aborted (go away): stopping the start-up; the workers that started are killed'),
        rec.printed.join('\n'),
      );
    }
    assert.deepEqual(r.stopped, { by: 'abort', reason: when === 'before' ? 'This operation was aborted' : 'go away' }, when);
    assert.equal(r.steps, 0);
    assert.deepEqual(rec.calls, []);
    assert.ok(
      rec.printed.some((l) => /^stopped by the AbortSignal \(.*\) during start-up, before any step; no worker is left$/.test(l)),
      rec.printed.join('\n'),
    );
    assert.deepEqual(checkpointSteps(cfg.runDir), []);
    assert.deepEqual(workerPids(process.pid), new Map(), `${when}: workers are left`);
  }
});

test('a callback that throws fails the run with E_CALLBACK naming it; the last completed step is saved', async () => {
  const cfg = config('throws');
  const boom = new Error('boom');
  const { rec, opts } = recording({
    onStepEnd: (f) => {
      if (f.step === 5) throw boom;
    },
  });
  const err = await train(cfg, opts).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof MgpuError, `not an MgpuError: ${String(err)}`);
  assert.equal(err.code, 'E_CALLBACK');
  assert.equal(err.exitCode, 1);
  assert.equal(err.message, 'the onStepEnd callback threw after step 5: boom');
  assert.equal(err.cause, boom);
  const ckpt = path.join(cfg.runDir, 'checkpoints', 'step-5');
  assert.equal(
    err.hint,
    `fix onStepEnd, or catch its errors inside it\n  hint: the last completed step (5) is in ${ckpt}; continue with train(config, { resume: true })`,
  );
  assert.doesNotMatch(formatError(err), /^\s+at /m, 'a stack trace');
  assert.ok(fs.existsSync(path.join(ckpt, 'trainer-state.json')), 'the last completed step was not saved');
  assert.ok(!rec.calls.some((c) => /^[SECP]([6-9])$/.test(c)), `callbacks after the failure: ${rec.calls}`);
  assert.ok(!fs.existsSync(path.join(cfg.runDir, 'final')));
  assert.deepEqual(workerPids(process.pid), new Map(), 'workers are left');
  const resumed = await train(cfg, { resume: true, print: false });
  assert.ok(bytes(resumed.weights).equals(bytes(await uninterrupted())), 'the resumed run is not bit-identical to the run never stopped');
});

test('an async callback that rejects at the final checkpoint fails the run naming it; the checkpoint is there', async () => {
  const cfg = config('rejects');
  const err = await train(cfg, {
    print: false,
    onCheckpoint: async (c) => {
      if (c.step === 9) throw new Error('upload failed');
    },
  }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof MgpuError);
  assert.equal(err.code, 'E_CALLBACK');
  assert.equal(err.message, 'the onCheckpoint callback threw after step 9: upload failed');
  assert.ok(fs.existsSync(path.join(cfg.runDir, 'checkpoints', 'step-9', 'trainer-state.json')));
});
