// The scaling scripts' measurements, taken by the project's own code rather than a copy of it:
// the MLP 784-512-10 (mlp-model.ts) on synthetic MNIST-shaped rows, timed by `mgpu-train
// benchmark --config` run as a user runs it (its JSON read back), and plain one-process tfjs
// timed by the command's own baseline process (src/benchmark/plain-child.ts), alone or as n
// processes side by side with nothing exchanged (the free-running ceiling of n workers).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlainFigures, PlainRequest } from '../../src/benchmark/plain-baseline.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';
import { workerModel } from '../../src/coordinator/engine/net-spec.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { BackendName } from '../../src/shared/backends-table.ts';
import { childExecArgv, projectFile } from '../../src/shared/runtime.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const MODEL = fileURLToPath(new URL('./mlp-model.ts', import.meta.url));

/** wasm's kernels as published ('shipped'), or with those mgpu-train's workers register ('mgpu'). */
export type Kernels = 'shipped' | 'mgpu';

export interface MlpBench {
  /** The experiment config the command times. */
  config: string;
  backend: BackendName;
  kernels: Kernels;
  steps: number;
  warmup: number;
}

/** An experiment config of the MLP with `rows` synthetic rows, sgd, in a fresh temporary folder. */
export function mlpBench(rows: number, backend: BackendName, kernels: Kernels, steps: number, warmup = 5): MlpBench {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-mlp-'));
  const config = path.join(dir, 'mlp.yaml');
  const yaml = [
    'name: mlp-784-512-10',
    `model: { module: ${JSON.stringify(MODEL)} }`,
    'loss: categoricalCrossentropy',
    `data: { train: { type: synthetic, shape: [784], classes: 10, count: ${rows} } }`,
    'training: { batchSize: 32, steps: 1, seed: 1 }',
    'optimizer: { name: sgd, learningRate: 0.01 }',
    `devices: { backend: ${backend}, replaceWasmKernels: ${kernels === 'mgpu'} }`,
  ];
  fs.writeFileSync(config, yaml.join('\n') + '\n');
  return { config, backend, kernels, steps, warmup };
}

/** `mgpu-train benchmark` on simulated GPUs at `batch` rows per worker for each of `workers`: its JSON report. */
export function commandBenchmark(b: MlpBench, batch: number, workers: number[]): BenchmarkReport {
  const json = path.join(path.dirname(b.config), `report-${process.pid}-${Date.now()}.json`);
  const args = ['benchmark', '--config', b.config, '--simulate', '--backend', b.backend, '--batch', String(batch), '--workers', workers.join(',')];
  args.push('--steps', String(b.steps), '--warmup', String(b.warmup), '--progress', 'plain', '--json', json);
  // Its own tables are not printed (the script prints its own); its errors are.
  execFileSync(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const report = JSON.parse(fs.readFileSync(json, 'utf8')) as BenchmarkReport;
  fs.rmSync(json, { force: true });
  return report;
}

/** images/s of one plain tfjs process on `rows` rows a step: the command's baseline process. */
async function plainProcess(b: MlpBench, request: PlainRequest): Promise<PlainFigures> {
  const child = spawn(process.execPath, [...childExecArgv(), projectFile('benchmark/plain-child'), JSON.stringify(request)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { result?: PlainFigures; refused?: string; failed?: string });
  const end = lines.find((l) => l.result ?? l.refused ?? l.failed);
  if (end?.result) return end.result;
  throw new Error(`plain tfjs (${b.config}, batch ${request.batch}): ${end?.refused ?? end?.failed ?? `exited with ${code} and no result`}`);
}

/** The summed images/s of `n` plain tfjs processes run side by side on `rows` rows each (n = 1: plain tfjs alone). */
export async function plainSideBySide(b: MlpBench, n: number, rows: number): Promise<number> {
  const cfg = await loadConfig(b.config);
  const request: PlainRequest = {
    backend: b.backend,
    replaceWasmKernels: b.kernels === 'mgpu',
    allowSoftwareAdapter: false,
    model: workerModel(cfg, null),
    seed: cfg.training.seed,
    loss: cfg.loss,
    optimizer: cfg.optimizer,
    batch: rows,
    steps: b.steps,
    warmup: b.warmup,
  };
  const figures = await Promise.all(Array.from({ length: n }, () => plainProcess(b, request)));
  return figures.reduce((sum, f) => sum + f.imagesPerSec, 0);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[s.length >> 1]! : NaN;
}
