// `mgpu-train benchmark --profile`: one step of rank 0 run under tf.profile, its kernels summed by
// name and written as JSON to a file. Asked for through the worker's environment, which the
// coordinator's process passes on to its workers: MGPU_PROFILE_STEP (the step, 0-based) and
// MGPU_PROFILE_FILE. Without them a step runs as it is.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { TF } from './backend.ts';

/** One kernel's share of the profiled step: its name, its time summed over its calls, and the calls. */
export interface KernelTime {
  name: string;
  ms: number;
  calls: number;
}

/** What the profile file holds. */
export interface StepProfile {
  step: number;
  backend: string;
  wallMs: number;
  /** Every kernel the step ran, the longest first; ms NaN (written null) where the backend gave no time. */
  kernels: KernelTime[];
}

/** Runs the step, under tf.profile when it is the one asked for (rank 0 alone). */
export async function profiledIfAsked(tf: TF, rank: number, step: number, run: () => Promise<void>): Promise<void> {
  const at = process.env.MGPU_PROFILE_STEP;
  const file = process.env.MGPU_PROFILE_FILE;
  if (rank !== 0 || at === undefined || !file || Number(at) !== step) return run();
  const t0 = performance.now();
  const info = await tf.profile(run);
  const wallMs = performance.now() - t0;
  const byName = new Map<string, KernelTime>();
  for (const k of info.kernels) {
    const ms = typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : NaN;
    const t = byName.get(k.name) ?? { name: k.name, ms: 0, calls: 0 };
    t.ms += ms;
    t.calls++;
    byName.set(k.name, t);
  }
  const kernels = [...byName.values()].sort((a, b) => (b.ms || 0) - (a.ms || 0));
  const profile: StepProfile = { step, backend: tf.getBackend(), wallMs, kernels };
  fs.writeFileSync(file, JSON.stringify(profile));
}
