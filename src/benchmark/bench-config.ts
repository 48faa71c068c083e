// What the benchmark trains: the experiment config (--config: its model and data, input pipeline
// included) or a network by name on synthetic rows of its input shape, and from it, for each
// worker count, a run of warm-up + measured steps with nothing else in it (no evaluation, no
// checkpoint, no early stopping; a metrics line every step) on that many workers.
import { loadConfig } from '../config/load.ts';
import { applyOverrides } from '../config/overrides.ts';
import { validateConfig } from '../config/validate.ts';
import { BACKENDS, type BackendName } from '../shared/backends-table.ts';
import type { Config, DevicesConfig } from '../config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import { plural } from '../coordinator/console/progress.ts';
import { checkSimulated, thisMachine, type Machine as Capacity } from '../coordinator/devices/capacity.ts';
import { benchmarkNet } from './net-source.ts';
import type { BenchmarkOptions } from './options.ts';

export interface BenchmarkSubject {
  cfg: Config;
  /** What is timed, for the table's title: the network, or the config's name and file. */
  what: string;
  /** Where its rows come from, for the table: synthetic, or the config's source. */
  data: string;
}

export async function benchmarkSubject(o: BenchmarkOptions, cwd = process.cwd()): Promise<BenchmarkSubject> {
  if (o.config !== null) {
    const cfg = await loadConfig(o.config, o.sets, cwd);
    return { cfg, what: `${cfg.name} (${o.config})`, data: `${cfg.data.train.type} source of the config (data.train)` };
  }
  const net = benchmarkNet(o.net!);
  const batch = o.batch * Math.max(...o.workers);
  const raw = applyOverrides(
    {
      name: `benchmark-${o.net!}`,
      model: net.model,
      loss: 'categoricalCrossentropy',
      // One global batch of the largest worker count: each step trains on every row.
      data: { train: { type: 'synthetic', shape: net.inputShape, classes: net.classes, count: batch } },
      training: { batchSize: batch, steps: o.warmup + o.steps, seed: 1 },
      optimizer: { name: 'momentum', learningRate: 0.01, momentum: 0.9 },
    },
    o.sets,
  );
  // --set model.classes / model.inputShape: the synthetic rows follow the network's new head and input.
  const model = raw.model as { classes?: unknown; inputShape?: unknown };
  const train = (raw.data as { train: Record<string, unknown> }).train;
  if (typeof model.classes === 'number') train.classes = model.classes;
  if (Array.isArray(model.inputShape)) train.shape = model.inputShape;
  const cfg = validateConfig(raw, { configPath: null, cwd });
  const shape = train.shape as number[];
  return { cfg, what: o.net!, data: `synthetic [${shape.join(', ')}], ${plural(Number(train.classes), 'class', 'classes')}, made in memory` };
}

/** How many GPUs the workers can use (from nvidia-smi), and whether the runs are on simulated ones. */
export interface Machine {
  gpus: number;
}

/** Whether the worker counts run on simulated GPUs: asked (--simulate, devices.simulate), or no GPU and a CPU backend. */
export function simulated(base: Config, o: BenchmarkOptions, m: Machine): boolean {
  const backend = o.backend ?? base.devices.backend;
  return o.simulate || base.devices.simulate > 0 || (m.gpus === 0 && BACKENDS[backend].kind !== 'gpu');
}

/** The devices section for `n` workers: n simulated GPUs; or n GPUs, or k workers sharing each GPU. */
export function devicesFor(base: Config, o: BenchmarkOptions, n: number, m: Machine): DevicesConfig {
  const backend: BackendName = o.backend ?? base.devices.backend;
  const d = { ...base.devices, backend, oversubscribe: o.oversubscribe || base.devices.oversubscribe };
  if (simulated(base, o, m)) return { ...d, simulate: n, gpus: 'all', workersPerGpu: 1 };
  const gpus = Math.max(m.gpus, 1); // webgpu without nvidia-smi: the one default adapter
  if (n <= gpus) return { ...d, simulate: 0, gpus: m.gpus === 0 ? 'all' : Array.from({ length: n }, (_, i) => i), workersPerGpu: 1 };
  if (n % gpus !== 0) {
    throw new MgpuError('E_USAGE', `--workers: ${n} workers cannot share ${gpus} GPUs evenly`, {
      hint: `use at most ${gpus} workers (one per GPU), or a multiple of ${gpus} (k workers sharing each GPU)`,
    });
  }
  return { ...d, simulate: 0, gpus: 'all', workersPerGpu: n / gpus };
}

/** The run for `n` workers into `runDir`: batch x n samples a step, warm-up + measured steps, nothing between them. */
export function configFor(base: Config, o: BenchmarkOptions, n: number, m: Machine, runDir: string): Config {
  return {
    ...base,
    name: `${base.name}-benchmark-${n}`,
    data: { ...base.data, eval: null, evalFraction: null },
    training: { ...base.training, batchSize: o.batch * n, steps: o.warmup + o.steps, epochs: null, earlyStopping: null },
    devices: devicesFor(base, o, n, m),
    log: { every: 1 },
    eval: { ...base.eval, every: 0 },
    metrics: null,
    checkpoint: { ...base.checkpoint, every: 0, best: null },
    runDir,
  };
}

/**
 * Every worker count checked before anything is measured, as its run would refuse it: GPUs
 * shared unevenly, more simulated GPUs than the machine holds, a global batch (batch x workers)
 * larger than the `rows` of data.train.
 */
export function checkWorkerCounts(base: Config, o: BenchmarkOptions, m: Machine, rows: number, capacity: Capacity = thisMachine()): void {
  for (const n of o.workers) {
    const d = devicesFor(base, o, n, m);
    if (d.simulate > 0) {
      try {
        checkSimulated(n, capacity, d.oversubscribe);
      } catch (err) {
        if (!(err instanceof MgpuError)) throw err;
        throw new MgpuError(err.code, err.message.replace(`devices.simulate ${n}: `, `--workers ${n}: `), {
          hint: err.hint?.replace(/^use --simulate (\d+) or fewer/, 'time $1 workers or fewer'),
        });
      }
    }
    const global = o.batch * n;
    if (global > rows) {
      const fits = Math.floor(rows / n);
      throw new MgpuError(
        'E_DATA',
        `--workers ${n}: a global batch of ${global} (${o.batch} x ${plural(n, 'worker')}) is more than the ${plural(rows, 'sample')} of data.train`,
        {
          hint: fits >= 1 ? `lower --batch to ${fits} or less, or time fewer workers` : `time ${plural(rows, 'worker')} or fewer`,
        },
      );
    }
  }
}
