// One worker count of the benchmark: its config trained for warm-up + measured steps in this
// process, the time of each measured step taken between the ends of consecutive steps (the whole
// loop pass, as tf_cnn_benchmarks times sess.run), and where a step's time goes from the figures
// metrics.jsonl has (the library API's per-step figures, the same fields).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { train } from '../coordinator/train.ts';
import type { SignalWatch } from '../coordinator/console/signals.ts';
import type { Config } from '../config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import type { TrainLine } from '../shared/metrics-lines.ts';
import type { StepProfile } from '../worker/step-profile.ts';
import { mean, rateFigures, type RateFigures } from './stats.ts';

/** Mean ms per measured step, by phase, as metrics.jsonl's train lines name them. */
export interface PhaseFigures {
  stepMs: number; // step_ms: plan to published weights
  computeSlowestMs: number; // compute_max_ms: the slowest worker's whole step (weights in, forward + backward, gradients out)
  computeFastestMs: number; // compute_min_ms
  weightsInMs: number; // refresh_ms: of the worker's step, the new weights into its model (slowest worker)
  gradientsOutMs: number; // write_ms: of the worker's step, its gradients out of tfjs into the slab (slowest worker)
  sumUpdateMs: number; // sync_ms: the coordinator's sum, optimizer update and publish
  dataMs: number; // data_ms: staging the shards
  dataWaitMs: number; // data_wait_ms: of dataMs, waiting for rows made on demand
  controlMs: number; // the rest of step_ms: control messages and waiting (the report's "other")
}

export interface CountFigures {
  workers: number;
  /** Samples per step over every worker (fewer in a step that ends a small epoch). */
  globalBatch: number;
  measuredSteps: number;
  /** Stopped by a signal before its measured steps were all taken. */
  partial: boolean;
  /** tf_cnn_benchmarks's images/sec: the mean of the per-step rates. */
  imagesPerSec: number;
  /** Its `+/-` (standard error of the mean) and jitter, and the rates' median, min and max. */
  rate: RateFigures;
  /** The measured images over the measured steps' summed time (tf_cnn_benchmarks's "total images/sec"). */
  totalImagesPerSec: number;
  stepMs: number[];
  phases: PhaseFigures;
  profile: StepProfile | null;
  /** What the run printed (header, device notes), for the JSON. */
  log: string[];
}

export interface MeasureOptions {
  warmup: number;
  steps: number;
  /** Profile the last warm-up step in worker 0. */
  profile: boolean;
  /** Called after every step: done so far, of total, and the rate of the measured steps so far (null while warming up). */
  progress: (done: number, total: number, rate: number | null) => void;
  /** Ctrl-C: stops the run after the step in progress (at once during its start-up). */
  signals: SignalWatch;
  /** Given, as the run starts, what gives the figures of the steps measured so far (a second Ctrl-C prints them). */
  soFar?: (figures: () => CountFigures | null) => void;
}

const samplesOf = (f: TrainLine) => Math.round((f.samples_per_sec * f.step_ms) / 1000);

export async function measureCount(cfg: Config, workers: number, o: MeasureOptions): Promise<CountFigures | null> {
  const stamps: number[] = [];
  const lines: TrainLine[] = [];
  const log: string[] = [];
  const rates: number[] = [];
  const profileFile = o.profile ? path.join(cfg.runDir, 'step-profile.json') : null;
  const out = { step() {}, line: (text: string) => void log.push(text), done() {} };
  const onStepEnd = (f: TrainLine) => {
    stamps.push(performance.now());
    lines.push(f);
    const k = lines.length;
    if (k > o.warmup) rates.push((samplesOf(f) * 1000) / (stamps[k - 1]! - stamps[k - 2]!));
    o.progress(k, o.warmup + o.steps, rates.length ? mean(rates) : null);
  };
  const figures = () => countFigures(cfg, workers, o, { stamps, lines, rates, log }, profileFile);
  o.soFar?.(figures);
  const env = { step: process.env.MGPU_PROFILE_STEP, file: process.env.MGPU_PROFILE_FILE };
  if (profileFile) {
    process.env.MGPU_PROFILE_STEP = String(o.warmup - 1);
    process.env.MGPU_PROFILE_FILE = profileFile;
  }
  try {
    await train(cfg, out, { callbacks: { onStepEnd }, signals: o.signals });
  } catch (err) {
    throw withoutScratchHints(err, cfg.runDir);
  } finally {
    restoreEnv('MGPU_PROFILE_STEP', env.step);
    restoreEnv('MGPU_PROFILE_FILE', env.file);
  }
  return figures();
}

interface Taken {
  stamps: number[];
  lines: TrainLine[];
  rates: number[];
  log: string[];
}

/** The figures of the steps measured so far; null before the first measured step. */
function countFigures(cfg: Config, workers: number, o: MeasureOptions, t: Taken, profileFile: string | null): CountFigures | null {
  const measured = t.lines.slice(o.warmup);
  if (measured.length === 0) return null;
  const stepMs = measured.map((_, i) => t.stamps[o.warmup + i]! - t.stamps[o.warmup + i - 1]!);
  const images = measured.reduce((a, f) => a + samplesOf(f), 0);
  const profile = profileFile && fs.existsSync(profileFile) ? (JSON.parse(fs.readFileSync(profileFile, 'utf8')) as StepProfile) : null;
  return {
    workers,
    globalBatch: cfg.training.batchSize,
    measuredSteps: measured.length,
    partial: measured.length < o.steps,
    imagesPerSec: mean(t.rates),
    rate: rateFigures(t.rates),
    totalImagesPerSec: (images * 1000) / stepMs.reduce((a, b) => a + b, 0),
    stepMs,
    phases: phases(measured),
    profile,
    log: [...t.log],
  };
}

function phases(lines: TrainLine[]): PhaseFigures {
  const m = (k: (f: TrainLine) => number) => mean(lines.map(k));
  const f = {
    stepMs: m((l) => l.step_ms),
    computeSlowestMs: m((l) => l.compute_max_ms),
    computeFastestMs: m((l) => l.compute_min_ms),
    weightsInMs: m((l) => l.refresh_ms),
    gradientsOutMs: m((l) => l.write_ms),
    sumUpdateMs: m((l) => l.sync_ms),
    dataMs: m((l) => l.data_ms),
    dataWaitMs: m((l) => l.data_wait_ms ?? 0),
  };
  return { ...f, controlMs: f.stepMs - f.computeSlowestMs - f.sumUpdateMs - f.dataMs };
}

/**
 * A failed count's error without the hints that name its run directory (a checkpoint there, a
 * --resume of it): the benchmark removes that directory, and there is no run to continue.
 */
export function withoutScratchHints(err: unknown, runDir: string): unknown {
  if (!(err instanceof MgpuError) || err.hint === undefined || !err.hint.includes(runDir)) return err;
  const kept = err.hint.split('\n  hint: ').filter((h) => !h.includes(runDir));
  return new MgpuError(err.code, err.message, { hint: kept.length ? kept.join('\n  hint: ') : undefined, exitCode: err.exitCode, cause: err.cause });
}

function restoreEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}

/** A fresh run directory for one worker count, removed by the caller. */
export function scratchRunDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-benchmark-'));
}
