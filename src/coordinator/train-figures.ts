// The figures of the steps: accumulated per step (the window), printed on the progress line,
// written to metrics.jsonl at log.every, and the time line at the end of the loop.
import type { GradsMessage } from '../shared/protocol.ts';
import type { TrainLine } from '../shared/metrics-lines.ts';
import type { Run } from './train-setup.ts';

export type Window = ReturnType<typeof newWindow>;

/** When a step began (t0), was staged (t1), gathered (t2) and published (t3): performance.now() times; `wait`: ms its rows were waited for. */
export interface StepTimes {
  t0: number;
  t1: number;
  t2: number;
  t3: number;
  wait: number;
}

/** g) A published step's figures: into the window, onto the progress line, and at log.every into metrics.jsonl. */
export function reportStep(
  run: Run,
  window: Window,
  replies: GradsMessage[],
  n: number,
  lr: number,
  gradNorm: number,
  { t0, t1, t2, t3, wait }: StepTimes,
): void {
  const { plan, state } = run;
  const ms = replies.map((m) => m.ms);
  window.add(
    state.lastLoss,
    n,
    Math.max(...ms),
    Math.min(...ms),
    Math.max(...replies.map((m) => m.refreshMs)),
    Math.max(...replies.map((m) => m.writeMs)),
    t3 - t2,
    t1 - t0,
    t3 - t0,
    wait,
  );
  state.stepMs = state.stepMs === 0 ? t3 - t0 : 0.9 * state.stepMs + 0.1 * (t3 - t0);
  // The loss shown is the one metrics.jsonl gets: the mean over the steps since its last line.
  const shown = window.loss();
  const completed = state.completed;
  run.out.step(
    completed,
    plan.totalSteps,
    `epoch ${state.epoch + 1} loss(mean of ${shown.steps}) ${shown.mean.toFixed(4)} lr ${lr.toPrecision(3)} ${Math.round((run.cfg.training.batchSize * 1000) / state.stepMs)} samples/s eta ${eta((plan.totalSteps - completed) * state.stepMs)}${wait > 0.1 * (t3 - t0) ? ' input-bound' : ''}`,
  );
  if (completed % run.cfg.log.every === 0 || completed === plan.totalSteps) run.metrics.write(window.flush(completed, state.epoch, lr, gradNorm));
}

/** How long the steps took (evaluations and checkpoints between them included) and the start-up before them. */
export function timeLine(steps: number, samples: number, loopMs: number, startMs: number): string {
  const sec = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
  return `trained ${steps} step${steps > 1 ? 's' : ''} (${samples} samples) in ${sec(loopMs)} s, ${Math.round((samples * 1000) / loopMs)} samples/s (evaluations between them included); start-up ${sec(startMs)} s`;
}

function eta(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Per-step figures accumulated between two metrics lines (`flush`), and for the library API's
 * callbacks, over the last step alone (`lastStep`) and over the epoch so far (`flushEpoch`).
 */
export function newWindow() {
  const since = () => ({ steps: 0, loss: 0, samples: 0, cmax: 0, cmin: 0, refresh: 0, write: 0, sync: 0, data: 0, wall: 0, wait: 0 });
  type Sums = ReturnType<typeof since>;
  let log = since();
  let epoch = since();
  let last = since();
  const lineOf = (a: Sums, step: number, ep: number, lr: number, gradNorm: number): TrainLine => {
    const r = (x: number) => Math.round(x * 1000) / 1000;
    const n = a.steps;
    return {
      type: 'train',
      step,
      epoch: ep,
      loss: a.loss / n,
      lr,
      samples_per_sec: r(a.samples / (a.wall / 1000)),
      compute_max_ms: r(a.cmax / n),
      compute_min_ms: r(a.cmin / n),
      refresh_ms: r(a.refresh / n),
      write_ms: r(a.write / n),
      sync_ms: r(a.sync / n),
      data_ms: r(a.data / n),
      data_wait_ms: r(a.wait / n),
      step_ms: r(a.wall / n),
      grad_norm: gradNorm,
    };
  };
  return {
    add(l: number, n: number, max: number, min: number, refreshMs: number, writeMs: number, syncMs: number, dataMs: number, stepMs: number, waitMs: number) {
      last = since();
      for (const a of [log, epoch, last]) {
        a.steps++;
        a.loss += l;
        a.samples += n;
        a.cmax += max;
        a.cmin += min;
        a.refresh += refreshMs;
        a.write += writeMs;
        a.sync += syncMs;
        a.data += dataMs;
        a.wall += stepMs;
        a.wait += waitMs;
      }
    },
    loss: () => ({ mean: log.loss / log.steps, steps: log.steps }),
    flush(step: number, ep: number, lr: number, gradNorm: number): TrainLine {
      const line = lineOf(log, step, ep, lr, gradNorm);
      log = since();
      return line;
    },
    lastStep: (step: number, ep: number, lr: number, gradNorm: number): TrainLine => lineOf(last, step, ep, lr, gradNorm),
    flushEpoch(step: number, ep: number, lr: number, gradNorm: number): TrainLine {
      const line = lineOf(epoch, step, ep, lr, gradNorm);
      epoch = since();
      return line;
    },
  };
}
