// What `mgpu-train benchmark` measured, as one object: printed as tables (table.ts) and written
// whole as JSON (--json). Per worker count `imagesPerSec`, and the plain baseline's.
import os from 'node:os';
import { writeFileAtomically } from '../shared/atomic-write.ts';
import type { CountFigures } from './measure.ts';
import type { ModelFlops } from './model-flops.ts';
import type { PeakOutcome, UtilisationRow } from './utilisation.ts';
import type { PlainFigures, PlainResult } from './plain-baseline.ts';

export interface CountResult extends CountFigures {
  /** images/s over workers x the 1-worker images/s; null without a 1-worker count. */
  efficiency: number | null;
  /** images/s over workers x plain tfjs's images/s; null without the baseline. */
  vsPlain: number | null;
}

export interface BenchmarkReport {
  command: string;
  date: string;
  machine: { cpus: number; cpu: string | null; memGiB: number; node: string; loadAverage: number[]; gpus: number };
  subject: { what: string; data: string; model: Record<string, unknown>; loss: unknown; optimizer: string };
  /** Where the workers ran, in words: simulated GPUs on a backend, or GPUs. */
  devices: string;
  simulated: boolean;
  backend: string;
  batchPerWorker: number;
  steps: number;
  warmup: number;
  results: CountResult[];
  /** Stopped by a signal before every figure was measured: `results` holds the counts measured so far (the last one maybe partial). */
  partial: boolean;
  /** The signal that stopped it, or null. */
  interrupted: NodeJS.Signals | null;
  /** The plain baseline's figures (its imagesPerSec among them), or why it was not timed. */
  plain: PlainReport;
  /** The FLOPs of one training sample of the model (model-flops.ts), or null when its model was never built. */
  flops: ModelFlops | null;
  /** The peak of one device (a core, measured; a GPU, nominal), or why there is none. */
  peak: PeakOutcome;
  /** Achieved GFLOP/s and model FLOPs utilisation, the baseline's row then each count's. */
  utilisation: UtilisationRow[];
}

export type PlainReport = (PlainFigures & { skipped: null }) | { imagesPerSec: null; skipped: string };

export function plainReport(p: PlainResult): PlainReport {
  return p.figures ? { ...p.figures, skipped: null } : { imagesPerSec: null, skipped: p.skipped };
}

/** The figures of each count, with its scaling against 1 worker and against the plain baseline. */
export function withScaling(counts: CountFigures[], plain: PlainReport): CountResult[] {
  const one = counts.find((c) => c.workers === 1)?.imagesPerSec ?? null;
  const base = plain.imagesPerSec;
  return counts.map((c) => ({
    ...c,
    efficiency: one === null ? null : c.imagesPerSec / (c.workers * one),
    vsPlain: base === null ? null : c.imagesPerSec / (c.workers * base),
  }));
}

export function machine(gpus: number): BenchmarkReport['machine'] {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu: cpus[0]?.model ?? null,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: os.loadavg(),
    gpus,
  };
}

/** The report as JSON, written whole or not at all (NaN, which JSON lacks, as null). */
export function writeReport(file: string, r: BenchmarkReport): void {
  writeFileAtomically(file, JSON.stringify(r, null, 1) + '\n');
}
