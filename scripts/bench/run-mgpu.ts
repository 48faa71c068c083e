// Runs mgpu-train in this process on synthetic MNIST-shaped data and returns the steady-state
// figures: samples/s from the wall time between completed steps, the phases from its
// metrics.jsonl (the first five steps, which hold the warm-up, are dropped from both).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateConfig } from '../../src/config/validate.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { train } from '../../src/coordinator/train.ts';
import type { TrainLine } from '../../src/shared/metrics-lines.ts';
import { syntheticMnistLike } from './synthetic.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const silent = { step() {}, line() {}, done() {} };

export interface MgpuFigures {
  workers: number;
  samples_per_sec: number;
  step_ms: number;
  compute_max_ms: number;
  compute_min_ms: number;
  refresh_ms: number;
  write_ms: number;
  sync_ms: number;
  data_ms: number;
}

export function syntheticDataDir(rows: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-'));
  const { features, labels, count } = syntheticMnistLike(rows);
  writeNpy(path.join(dir, 'x.npy'), { dtype: 'float32', shape: [count, 784], data: features });
  writeNpy(path.join(dir, 'y.npy'), { dtype: 'float32', shape: [count, 10], data: labels });
  return dir;
}

export interface MgpuRun {
  dataDir: string;
  workers: number;
  batch: number;
  steps: number;
  backend: string;
  model?: string;
  logEvery?: number;
  replaceWasmKernels?: boolean;
  /** Replaces the simulated-GPU devices section (e.g. webgpu workers sharing one GPU). */
  devices?: Record<string, unknown>;
  optimizer?: Record<string, unknown>;
}

export async function runMgpu(opts: MgpuRun): Promise<MgpuFigures> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-run-'));
  const logEvery = opts.logEvery ?? 1;
  const cfg = validateConfig(
    {
      name: 'bench',
      model: { module: opts.model ?? path.join(here, 'mlp-model.ts') },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: path.join(opts.dataDir, 'x.npy'), labels: path.join(opts.dataDir, 'y.npy') } },
      training: { batchSize: opts.batch, steps: opts.steps, seed: 1 },
      optimizer: opts.optimizer ?? { name: 'sgd', learningRate: 0.01 },
      devices: opts.devices ?? { simulate: opts.workers, backend: opts.backend, replaceWasmKernels: opts.replaceWasmKernels ?? true },
      log: { every: logEvery },
      runDir,
    },
    { configPath: null, cwd: process.cwd() },
  );
  // samples/s from the wall time between two completed steps: the whole loop pass, logging,
  // metrics and progress included, as the plain baseline times its whole step.
  const stamps: number[] = [];
  await train(cfg, { ...silent, step: () => void stamps.push(performance.now()) });
  const between = stamps.slice(5).map((t, i) => t - stamps[i + 4]!);
  const lines = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string })
    .filter((l): l is TrainLine => l.type === 'train')
    .slice(5);
  fs.rmSync(runDir, { recursive: true, force: true });
  const med = (k: keyof TrainLine) => median(lines.map((l) => l[k] as number));
  return {
    workers: opts.workers,
    samples_per_sec: (opts.batch * 1000) / median(between),
    step_ms: med('step_ms'),
    compute_max_ms: med('compute_max_ms'),
    compute_min_ms: med('compute_min_ms'),
    refresh_ms: med('refresh_ms'),
    write_ms: med('write_ms'),
    sync_ms: med('sync_ms'),
    data_ms: med('data_ms'),
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[s.length >> 1]! : NaN;
}
