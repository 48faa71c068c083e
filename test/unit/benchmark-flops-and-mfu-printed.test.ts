// The benchmark's "how close to the limit": each row's achieved GFLOP/s (images/s x the FLOPs of a
// training sample) and its model FLOPs utilisation against the peak of the devices it ran on
// (N simulated workers: N cores; N workers on G GPUs: min(N, G) GPUs; the baseline: one), the
// table that prints them, what it says without a peak or without FLOPs, and the GPU peaks by
// adapter name. Figures worked by hand here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchmarkTables } from '../../src/benchmark/table.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';
import { gpuPeak, utilisationRows, type PeakOutcome } from '../../src/benchmark/utilisation.ts';

const corePeak: PeakOutcome = { peak: { gflopsPerDevice: 200, source: 'measured, AVX-512 FMA loop on one core', device: 'core' }, missing: null };
const flops = { forward: 1.1e9, training: 3.3e9, uncounted: [] };

test('rows: GFLOP/s = images/s x FLOPs; MFU against one core per simulated worker, one for the baseline', () => {
  const rows = utilisationRows(
    20,
    [
      { workers: 1, imagesPerSec: 40 },
      { workers: 2, imagesPerSec: 60 },
    ],
    3.3e9,
    corePeak,
    0,
  );
  assert.deepEqual(
    rows.map((r) => [r.workers, r.devices, Math.round(r.gflops!), Number(r.mfu!.toFixed(4))]),
    [
      [null, 1, 66, 0.33],
      [1, 1, 132, 0.66],
      [2, 2, 198, 0.495],
    ],
  );
});

test('on GPUs: 4 workers on 2 GPUs are held to 2 GPUs, 1 worker to 1; an unknown GPU has no peak and no MFU', () => {
  const h100 = gpuPeak('NVIDIA H100 80GB HBM3');
  assert.equal(h100.peak?.gflopsPerDevice, 66900);
  assert.equal(gpuPeak('NVIDIA H100 PCIe').peak?.gflopsPerDevice, 51200);
  assert.equal(gpuPeak('NVIDIA H200').peak?.source, 'nominal FP32 of NVIDIA H200');
  const rows = utilisationRows(
    null,
    [
      { workers: 1, imagesPerSec: 1000 },
      { workers: 4, imagesPerSec: 3000 },
    ],
    3.3e9,
    h100,
    2,
  );
  assert.deepEqual(
    rows.map((r) => [r.workers, r.devices]),
    [
      [1, 1],
      [4, 2],
    ],
  );
  assert.ok(Math.abs(rows[1]!.mfu! - (3000 * 3.3) / (2 * 66900)) < 1e-12);
  const unknown = gpuPeak('Some Software Rasterizer');
  assert.equal(unknown.peak, null);
  assert.match(unknown.missing, /no nominal peak is known for "Some Software Rasterizer"/);
  assert.deepEqual(
    utilisationRows(null, [{ workers: 1, imagesPerSec: 10 }], 3.3e9, unknown, 1).map((r) => r.mfu),
    [null],
  );
});

const report = (over: Partial<BenchmarkReport>): BenchmarkReport =>
  ({
    subject: { what: 'resnet18-cifar', data: 'synthetic' },
    batchPerWorker: 32,
    steps: 5,
    warmup: 1,
    devices: 'simulated GPUs on the CPU, backend wasm',
    interrupted: null,
    results: [],
    plain: { imagesPerSec: null, skipped: 'refused' },
    ...over,
  }) as unknown as BenchmarkReport;

test('the table: FLOPs of a sample, the peak and how it was had, a row each; uncounted layers named', () => {
  const rows = utilisationRows(20, [{ workers: 2, imagesPerSec: 60 }], 3.3e9, corePeak, 0);
  const r = report({
    results: [{ workers: 2, globalBatch: 64, imagesPerSec: 60, rate: { stderr: 0, jitter: 0 }, totalImagesPerSec: 60, phases: {} } as never],
    flops: { ...flops, uncounted: ['Block'] },
    peak: corePeak,
    utilisation: rows,
  });
  const lines = benchmarkTables(r);
  const at = lines.findIndex((l) => l.startsWith('how close to the limit'));
  assert.deepEqual(lines.slice(at, at + 7), [
    "how close to the limit: 3.30 GFLOP a training sample (3 x the forward's 1.10: the multiply-adds of convolutions and dense layers, 2 FLOPs each)",
    '  not counted (layers of these classes hold weights but their work is not known): Block',
    'peak: 200 GFLOP/s per core (measured, AVX-512 FMA loop on one core); MFU: achieved / (peak x the cores the row ran on)',
    '                       cores  GFLOP/s    MFU',
    '---------------------  -----  -------  -----',
    'plain tfjs, 1 process      1     66.0  33.0%',
    'mgpu-train, 2 workers      2      198  49.5%',
  ]);
});

test('no peak: said why, and the rows have GFLOP/s but no MFU', () => {
  const none: PeakOutcome = { peak: null, missing: 'the convolution addon is not in use' };
  const lines = benchmarkTables(
    report({
      results: [{ workers: 1, globalBatch: 32, imagesPerSec: 10, rate: { stderr: 0, jitter: 0 }, totalImagesPerSec: 10, phases: {} } as never],
      flops,
      peak: none,
      utilisation: utilisationRows(null, [{ workers: 1, imagesPerSec: 10 }], 3.3e9, none, 0),
    }),
  );
  const at = lines.indexOf('peak: not known (the convolution addon is not in use)');
  assert.ok(at > 0, lines.join('\n'));
  assert.match(lines[at + 3]!, /^mgpu-train, 1 worker +1 +33\.0 +-$/);
});

test('no FLOPs known, or none counted (a model of layers whose work is not counted): no GFLOP/s and no MFU, not a zero', () => {
  for (const perSample of [null, 0]) {
    assert.deepEqual(
      utilisationRows(20, [{ workers: 1, imagesPerSec: 40 }], perSample, corePeak, 0).map((r) => [r.gflops, r.mfu]),
      [
        [null, null],
        [null, null],
      ],
    );
  }
});
