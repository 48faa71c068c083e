// How close to the machine's limit a benchmark row runs: its achieved FLOP/s (images/s x the
// FLOPs of a training sample, model-flops.ts) over the peak of the devices it ran on, model FLOPs
// utilisation (MFU) as large-model trainers report it.
//
// The peak of a device:
// - a CPU core (simulated GPUs, and the plain baseline on a CPU backend): measured here, once per
//   benchmark, by the convolution addon's FMA loop at the widest vector width the CPU runs
//   (native/src/fma-peak.c: AVX-512, else AVX2+FMA), the best of several runs; a row of N
//   simulated workers (one core each) has N x that;
// - a GPU: its nominal single-precision (FP32, non-tensor-core) peak from the table below, by
//   the adapter's name: WebGPU's shaders compute in FP32 without tensor cores. A row of N workers
//   on G GPUs (k per GPU) has min(N, G) x that. A GPU the table does not know has no MFU.
// No peak, no MFU: a CPU without the addon built (a JavaScript loop says nothing of the vector
// units) says why.
import { nativeConv } from '../worker/wasm-kernels/native-conv.ts';

export interface Peak {
  /** GFLOP/s of one device: a CPU core or a GPU. */
  gflopsPerDevice: number;
  /** How it was had, in words: "measured, AVX-512 FMA loop on one core" or "nominal FP32 of NVIDIA H100 (SXM)". */
  source: string;
  /** 'core' (simulated workers, one core each) or 'gpu'. */
  device: 'core' | 'gpu';
}

export type PeakOutcome = { peak: Peak; missing: null } | { peak: null; missing: string };

/** Nominal FP32 peaks (TFLOP/s, non-tensor-core, boost clock), from the makers' data sheets; the first pattern that matches the adapter's name wins. */
const GPU_FP32_TFLOPS: [RegExp, number, string][] = [
  [/H100.*PCIe/i, 51.2, 'NVIDIA H100 PCIe'],
  [/H100/i, 66.9, 'NVIDIA H100 SXM'],
  [/GH200/i, 66.9, 'NVIDIA GH200'],
  [/H200/i, 66.9, 'NVIDIA H200'],
  [/A100/i, 19.5, 'NVIDIA A100'],
  [/L40S/i, 91.6, 'NVIDIA L40S'],
  [/L4\b/i, 30.3, 'NVIDIA L4'],
  [/A10\b/i, 31.2, 'NVIDIA A10'],
  [/V100/i, 15.7, 'NVIDIA V100 SXM2'],
  [/T4\b/i, 8.1, 'NVIDIA T4'],
  [/RTX 4090/i, 82.6, 'NVIDIA GeForce RTX 4090'],
  [/RTX 3090/i, 35.6, 'NVIDIA GeForce RTX 3090'],
];

/** The vector width of an FMA loop, in words, by the ISA the addon names. */
export const isaWords = (isa: string): string => (isa === 'avx512' ? 'AVX-512' : isa === 'avx2-fma' ? 'AVX2+FMA' : 'scalar');

/** One core's FP32 peak, measured for `seconds` (the best of runs of a quarter of it) by the addon given (the convolution addon in use). */
export function cpuPeak(seconds = 0.4, conv: ReturnType<typeof nativeConv> = nativeConv()): PeakOutcome {
  const { addon, reason } = conv;
  if (!addon) return { peak: null, missing: `the CPU's peak is measured by the convolution addon, which is not in use (${reason})` };
  if (!addon.fmaPeak) return { peak: null, missing: 'the convolution addon was built before it could measure the peak: npm run build:native' };
  const { gflops, isa } = addon.fmaPeak(seconds);
  return { peak: { gflopsPerDevice: gflops, source: `measured, ${isaWords(isa)} FMA loop on one core`, device: 'core' }, missing: null };
}

/** A GPU's nominal FP32 peak by its adapter's name (the device plan's label). */
export function gpuPeak(label: string): PeakOutcome {
  const hit = GPU_FP32_TFLOPS.find(([pattern]) => pattern.test(label));
  if (!hit) return { peak: null, missing: `no nominal peak is known for ${JSON.stringify(label)} (src/benchmark/utilisation.ts lists those known)` };
  return { peak: { gflopsPerDevice: hit[1] * 1000, source: `nominal FP32 of ${hit[2]}`, device: 'gpu' }, missing: null };
}

/** One row of the utilisation table: the plain baseline (workers null) or a worker count. */
export interface UtilisationRow {
  workers: number | null;
  /** The devices whose peak the row is held to: cores (one per simulated worker; the baseline's one) or GPUs. */
  devices: number;
  gflops: number | null;
  mfu: number | null;
}

/** The baseline's row (one device) and each count's: N simulated workers hold N cores, N workers on G GPUs min(N, G) GPUs. */
export function utilisationRows(
  plainImagesPerSec: number | null,
  counts: { workers: number; imagesPerSec: number }[],
  flopsPerSample: number | null,
  outcome: PeakOutcome,
  gpus: number,
): UtilisationRow[] {
  const peak = outcome.peak;
  const devicesOf = (workers: number) => (peak?.device === 'gpu' ? Math.min(workers, Math.max(gpus, 1)) : workers);
  const rows: UtilisationRow[] = [];
  if (plainImagesPerSec !== null) rows.push({ workers: null, devices: 1, ...utilisation(plainImagesPerSec, flopsPerSample, peak, 1) });
  for (const c of counts)
    rows.push({ workers: c.workers, devices: devicesOf(c.workers), ...utilisation(c.imagesPerSec, flopsPerSample, peak, devicesOf(c.workers)) });
  return rows;
}

/** A row's achieved GFLOP/s and its fraction of the peak of the devices it used (`devices`: cores or GPUs). */
export function utilisation(
  imagesPerSec: number,
  flopsPerSample: number | null,
  peak: Peak | null,
  devices: number,
): { gflops: number | null; mfu: number | null } {
  if (flopsPerSample === null || !(flopsPerSample > 0)) return { gflops: null, mfu: null };
  const gflops = (imagesPerSec * flopsPerSample) / 1e9;
  return { gflops, mfu: peak ? gflops / (peak.gflopsPerDevice * devices) : null };
}
