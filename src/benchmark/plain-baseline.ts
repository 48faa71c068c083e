// The plain one-process tfjs baseline of the benchmark (plain-child.ts), started in a process of
// its own on the device worker 0 uses, and its figures read back.
import { spawn } from 'node:child_process';
import type { BackendName } from '../shared/backends-table.ts';
import type { Config, OptimizerConfig, LossSpec } from '../config/types.ts';
import type { InitMessage } from '../shared/protocol.ts';
import { workerModel } from '../coordinator/engine/net-spec.ts';
import { childExecArgv, projectFile } from '../shared/runtime.ts';
import type { RateFigures } from './stats.ts';
import type { BenchmarkSignals } from './interrupt.ts';
import type { ModelFlops } from './model-flops.ts';
import { plainEnded } from './plain-failure.ts';

export interface PlainRequest {
  backend: BackendName;
  replaceWasmKernels: boolean;
  allowSoftwareAdapter: boolean;
  model: InitMessage['model'];
  seed: number;
  loss: LossSpec;
  optimizer: OptimizerConfig;
  batch: number;
  steps: number;
  warmup: number;
}

export interface PlainFigures {
  backend: string; // as the backend reports itself
  kernels: string; // which kernels ran (on wasm: mgpu-train's)
  batch: number;
  inputShape: number[];
  measuredSteps: number;
  imagesPerSec: number;
  rate: RateFigures;
  totalImagesPerSec: number;
  stepMs: number[];
  note: string | null;
}

/** The baseline's figures, or why there are none (`skipped`). */
export type PlainResult = { figures: PlainFigures; skipped: null } | { figures: null; skipped: string };
/** That, and the FLOPs of a training sample of its model (null when the model was never built). */
export type PlainOutcome = PlainResult & { flops: ModelFlops | null };

export interface PlainRun {
  cfg: Config;
  backend: BackendName;
  /** The environment of worker 0's device (the Vulkan device-select layer's choice, CUDA_VISIBLE_DEVICES). */
  env: Record<string, string>;
  batch: number;
  steps: number;
  warmup: number;
  /** The class count of a network by name's head, found as the workers find it (plain-classes.ts); null when the model needs none. */
  classes: number | null;
  progress: (done: number, total: number, rate: number | null) => void;
  /** Ctrl-C: forwarded to the baseline's process (killed if it lingers). */
  signals: BenchmarkSignals;
}

export async function runPlain(r: PlainRun): Promise<PlainOutcome> {
  const req: PlainRequest = {
    backend: r.backend,
    replaceWasmKernels: r.cfg.devices.replaceWasmKernels,
    allowSoftwareAdapter: r.cfg.devices.allowSoftwareAdapter,
    // A network by name with its classes resolved as the workers get them (plain-classes.ts).
    model: workerModel(r.cfg, r.classes),
    seed: r.cfg.training.seed,
    loss: r.cfg.loss,
    optimizer: r.cfg.optimizer,
    batch: r.batch,
    steps: r.steps,
    warmup: r.warmup,
  };
  const child = spawn(process.execPath, [...childExecArgv(), projectFile('benchmark/plain-child'), JSON.stringify(req)], {
    env: { ...process.env, ...r.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forget = r.signals.watchChild(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const got: { outcome: PlainResult | null; flops: ModelFlops | null } = { outcome: null, flops: null };
  let pending = '';
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) got.outcome = read(line, r, got) ?? got.outcome;
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  forget();
  const stopped = r.signals.requested();
  const { flops } = got;
  if (stopped !== null && got.outcome?.figures == null) return { figures: null, skipped: `interrupted by ${stopped}`, flops };
  const result: PlainResult = got.outcome ?? { figures: null, skipped: plainEnded(code, signal, stderr) };
  return { ...result, flops };
}

function read(line: string, r: PlainRun, got: { flops: ModelFlops | null }): PlainResult | null {
  let m: { progress?: number; total?: number; rate?: number | null; result?: PlainFigures; refused?: string; failed?: string; flops?: ModelFlops };
  try {
    m = JSON.parse(line) as typeof m;
  } catch {
    return null; // a line the model's module printed
  }
  if (m.flops) got.flops = m.flops;
  if (m.progress !== undefined) r.progress(m.progress, m.total ?? 0, m.rate ?? null);
  if (m.result) return { figures: m.result, skipped: null };
  if (m.refused) return { figures: null, skipped: m.refused };
  if (m.failed) return { figures: null, skipped: m.failed }; // said by plain-failure.ts
  return null;
}
