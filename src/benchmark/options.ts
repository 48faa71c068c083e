// `mgpu-train benchmark`'s flags, checked into one object before anything starts: a wrong one is
// E_USAGE (exit 2) naming the flag and what it takes.
import fs from 'node:fs';
import path from 'node:path';
import { BACKENDS, type BackendName } from '../shared/backends-table.ts';
import { closest } from '../config/checker.ts';
import { BACKEND_NAMES } from '../config/types.ts';
import { MgpuError } from '../shared/errors.ts';

export interface BenchmarkOptions {
  /** A network by name (net-source.ts), or null with `config`. */
  net: string | null;
  /** An experiment config whose model and data are timed, or null with `net`. */
  config: string | null;
  sets: string[];
  /** Samples per worker per step; the global batch is batch x workers. */
  batch: number;
  /** The worker counts, in the order given. */
  workers: number[];
  backend: BackendName | null;
  /** Simulated GPUs on the CPU, whatever the machine has. */
  simulate: boolean;
  oversubscribe: boolean;
  /** Steps measured, after `warmup` steps that are not. */
  steps: number;
  warmup: number;
  /** Where the JSON with every figure goes, or null. */
  json: string | null;
  /** Profile one step in worker 0 (its largest kernels). */
  profile: boolean;
}

export const BENCHMARK_DEFAULTS = { batch: 32, steps: 50, warmup: 10 };

/** The flags as yargs gives them. */
export interface BenchmarkArgv {
  net?: string;
  config?: string;
  set?: string[];
  batch?: string;
  workers?: string;
  backend?: string;
  simulate?: boolean;
  oversubscribe?: boolean;
  steps?: string;
  warmup?: string;
  json?: string;
  profile?: boolean;
}

function usage(message: string, hint: string): never {
  throw new MgpuError('E_USAGE', message, { hint });
}

// Taken as text (yargs would make `--batch abc` NaN), so that the message shows what was typed.
function whole(flag: string, text: string | undefined, fallback: number, min: number, hint: string): number {
  if (text === undefined) return fallback;
  const v = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(v) || v < min) usage(`--${flag} ${JSON.stringify(text)}: expected an integer >= ${min}`, hint);
  return v;
}

/** `--workers 1,2,4`: distinct positive counts; `fallback`'s when not given. */
export function workerCounts(text: string | undefined, fallback: () => number[]): number[] {
  if (text === undefined) return fallback();
  const parts = text.split(',').map((p) => p.trim());
  const counts = parts.map(Number);
  const bad = parts.find((p, i) => !/^\d+$/.test(p) || counts[i]! < 1);
  if (bad !== undefined)
    usage(
      `--workers ${JSON.stringify(text)}: ${JSON.stringify(bad)} is not a positive integer`,
      'a comma-separated list of worker counts, e.g. --workers 1,2,4',
    );
  const twice = counts.find((c, i) => counts.indexOf(c) !== i);
  if (twice !== undefined) usage(`--workers ${JSON.stringify(text)}: ${twice} is listed twice`, 'list each worker count once');
  return counts;
}

/** `--backend`: one of the backends, a mistyped one named with the nearest. */
function backendOf(text: string | undefined): BackendName | null {
  if (text === undefined) return null;
  if ((BACKEND_NAMES as readonly string[]).includes(text)) return text as BackendName;
  const near = closest(text, BACKEND_NAMES);
  usage(`--backend ${JSON.stringify(text)} is not a backend${near ? `: did you mean ${near}?` : ''}`, `the backends are ${BACKEND_NAMES.join(', ')}`);
}

/** The checked options; `defaultWorkers`: the counts timed without --workers. */
export function benchmarkOptions(argv: BenchmarkArgv, defaultWorkers: () => number[]): BenchmarkOptions {
  const net = argv.net ?? null;
  const config = argv.config ?? null;
  if (net === null && config === null) usage('name a network or give --config', 'mgpu-train benchmark <net> ... or mgpu-train benchmark --config exp.yaml ...');
  if (net !== null && config !== null)
    usage(`a network (${net}) and --config ${config} both given`, "time one of them: --config uses the config's own model and data");
  const backend = backendOf(argv.backend);
  const simulate = argv.simulate ?? false;
  if (simulate && backend !== null && BACKENDS[backend].kind === 'gpu')
    usage(
      `--simulate runs on a CPU backend, and --backend ${backend} is a GPU one`,
      'drop --simulate to time the GPU, or choose --backend wasm, cpu or tfjs-node',
    );
  const json = argv.json === undefined ? null : path.resolve(argv.json);
  if (json !== null && !fs.existsSync(path.dirname(json)))
    usage(`--json ${argv.json}: the directory ${path.dirname(json)} does not exist`, 'create it first, or name a file in an existing directory');
  if (json !== null && fs.existsSync(json) && fs.statSync(json).isDirectory())
    usage(`--json ${argv.json} is a directory`, 'name a file, e.g. --json bench.json');
  return {
    net,
    config,
    sets: argv.set ?? [],
    batch: whole('batch', argv.batch, BENCHMARK_DEFAULTS.batch, 1, 'the samples each worker takes per step, e.g. --batch 64'),
    workers: workerCounts(argv.workers, defaultWorkers),
    backend,
    simulate,
    oversubscribe: argv.oversubscribe ?? false,
    // Two measured steps at least: the standard error needs two.
    steps: whole('steps', argv.steps, BENCHMARK_DEFAULTS.steps, 2, 'the steps measured, e.g. --steps 50'),
    // One warm-up step at least: a step's time is measured from the end of the one before it.
    warmup: whole('warmup', argv.warmup, BENCHMARK_DEFAULTS.warmup, 1, 'steps run before measuring (compilation, first allocations), e.g. --warmup 10'),
    json,
    profile: argv.profile ?? false,
  };
}
