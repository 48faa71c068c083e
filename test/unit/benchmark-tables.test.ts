// The benchmark's tables on a report written out by hand: a row per count (partial ones marked),
// the baseline's row first, '-' where a scaling is unknown, the phases, the profiled kernels,
// and what an interrupted run says when it measured little or nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchmarkTables, columns } from '../../src/benchmark/table.ts';
import type { BenchmarkReport, CountResult, PlainReport } from '../../src/benchmark/report.ts';

const rate = { mean: 0, stderr: 1.5, jitter: 2.25, median: 0, min: 0, max: 0 };
const phases = {
  stepMs: 10,
  computeSlowestMs: 6,
  computeFastestMs: 5,
  weightsInMs: 1,
  gradientsOutMs: 2,
  sumUpdateMs: 2,
  dataMs: 1,
  dataWaitMs: 0.5,
  controlMs: 1,
};
const count = (workers: number, over: Partial<CountResult> = {}): CountResult => ({
  workers,
  globalBatch: 4 * workers,
  measuredSteps: 50,
  partial: false,
  imagesPerSec: 123.456,
  rate,
  totalImagesPerSec: 99.5,
  stepMs: [],
  phases,
  profile: null,
  log: [],
  efficiency: 1,
  vsPlain: 0.5,
  ...over,
});
const plain: PlainReport = {
  backend: 'cpu',
  kernels: 'as shipped',
  batch: 4,
  inputShape: [6],
  measuredSteps: 50,
  imagesPerSec: 246.9,
  rate,
  totalImagesPerSec: 200,
  stepMs: [],
  note: null,
  skipped: null,
};
const report = (over: Partial<BenchmarkReport> = {}): BenchmarkReport => ({
  command: 'mgpu-train benchmark mlp',
  date: '2026-01-01T00:00:00.000Z',
  machine: { cpus: 2, cpu: null, memGiB: 4, node: 'v20', loadAverage: [0, 0, 0], gpus: 0 },
  subject: { what: 'mlp', data: 'synthetic [6]', model: {}, loss: 'categoricalCrossentropy', optimizer: 'sgd' },
  devices: 'simulated GPUs on the CPU, backend cpu',
  simulated: true,
  backend: 'cpu',
  batchPerWorker: 4,
  steps: 50,
  warmup: 10,
  results: [count(1), count(2, { efficiency: 0.75, vsPlain: null, imagesPerSec: 9.876 })],
  partial: false,
  interrupted: null,
  plain,
  flops: null,
  peak: { peak: null, missing: 'not measured here' },
  utilisation: [],
  ...over,
});

test('columns: the first cell left-aligned, the others right-aligned, under a rule as wide as each', () => {
  assert.deepEqual(
    columns(
      ['', 'a', 'bbb'],
      [
        ['x', '1', '2'],
        ['yy', '10', '3'],
      ],
    ),
    ['     a  bbb', '--  --  ---', 'x    1    2', 'yy  10    3'],
  );
});

test('the rates table: the baseline first, then each count; figures rounded as tf_cnn_benchmarks prints them', () => {
  const lines = benchmarkTables(report());
  assert.equal(lines[0], 'mgpu-train benchmark: mlp; data: synthetic [6]');
  assert.equal(lines[1], 'batch 4 per worker (global batch: 4 x workers), 50 steps measured after 10 warm-up; workers: simulated GPUs on the CPU, backend cpu');
  assert.equal(lines[2], '');
  assert.equal(lines[3], '                             global batch  images/s   +/-  jitter  total images/s  scaling (vs 1 worker)  vs plain');
  assert.equal(lines[5], 'plain tfjs, 1 process (cpu)             4     246.9  1.50    2.25           200.0                             100%');
  assert.equal(lines[6], 'mgpu-train, 1 worker                    4     123.5  1.50    2.25            99.5                   100%       50%');
  assert.equal(lines[7], 'mgpu-train, 2 workers                   8      9.88  1.50    2.25            99.5                    75%         -');
  assert.equal(lines[8], 'plain tfjs: kernels as shipped; batch 4, synthetic rows [6]');
  assert.equal(lines[9], "scaling: images/s / (workers x 1 worker's); vs plain: images/s / (workers x plain tfjs's)");
  assert.equal(lines[11], 'where a step goes (mean ms per measured step; the worker figures are of its whole step, of which weights in and gradients out):');
  assert.match(lines[12]!, /^workers +step +slowest worker +fastest worker +weights in +gradients out +sum \+ update +data +data wait +control$/);
  assert.match(lines[14]!, /^1 +10\.00 +6\.00 +5\.00 +1\.00 +2\.00 +2\.00 +1\.00 +0\.50 +1\.00$/);
  assert.match(lines[15]!, /^2 +10\.00 /);
  assert.equal(lines[17], 'how close to the limit: not known (the model was not built by the plain baseline, which counts its FLOPs)');
  assert.equal(lines.length, 18);
});

test('a note of the baseline is said; a baseline not timed is said instead of its row', () => {
  const noted = benchmarkTables(report({ plain: { ...plain, note: 'tfjs has no AdamW' } }));
  assert.ok(noted.includes('plain tfjs: kernels as shipped; batch 4, synthetic rows [6]; tfjs has no AdamW'));
  const skipped = benchmarkTables(report({ plain: { imagesPerSec: null, skipped: 'two inputs' } }));
  assert.ok(skipped.includes('plain tfjs: not timed (two inputs)'));
  assert.ok(!skipped.some((l) => l.startsWith('plain tfjs, 1 process')));
  assert.ok(skipped.some((l) => /^mgpu-train, 2 workers +8 /.test(l)));
});

test('interrupted: said first; a partial count marked with its steps; nothing measured said plainly', () => {
  const cut = benchmarkTables(report({ interrupted: 'SIGINT', partial: true, results: [count(1), count(2, { partial: true, measuredSteps: 7 })] }));
  assert.equal(cut[0], 'interrupted by SIGINT: the figures below are partial, those measured before it');
  assert.equal(cut[1], 'mgpu-train benchmark: mlp; data: synthetic [6]');
  assert.ok(cut.some((l) => /^mgpu-train, 2 workers \(partial: 7 of 50 steps\) +8 /.test(l)));
  assert.ok(cut.some((l) => /^mgpu-train, 1 worker +4 /.test(l)));
  const none = benchmarkTables(report({ interrupted: 'SIGINT', partial: true, results: [], plain: { imagesPerSec: null, skipped: 'interrupted by SIGINT' } }));
  assert.deepEqual(none.slice(-2), ['plain tfjs: not timed (interrupted by SIGINT)', 'no worker count was measured']);
  assert.ok(!none.some((l) => l.includes('global batch  images/s') || l.startsWith('where a step goes')));
  const plainOnly = benchmarkTables(report({ interrupted: 'SIGTERM', partial: true, results: [] }));
  assert.equal(plainOnly.at(-1), 'no worker count was measured');
  assert.ok(plainOnly.some((l) => l.startsWith('plain tfjs, 1 process (cpu)')));
  assert.ok(!plainOnly.some((l) => l.startsWith('where a step goes')));
});

test('the profiled step: its ten largest kernels with their share; a backend that gave no times said so', () => {
  const kernels = Array.from({ length: 12 }, (_, i) => ({ name: `k${i}`, ms: i === 11 ? NaN : 10 - (i % 10), calls: i + 1 }));
  const profile = { step: 9, backend: 'cpu', wallMs: 80, kernels } as unknown as CountResult['profile'];
  const lines = benchmarkTables(report({ results: [count(2, { profile })] }));
  const at = lines.findIndex((l) => l.startsWith('largest kernels'));
  // kernels of finite time: 10+9+...+1 = 55, then 10 again: 65; the last has none
  assert.equal(
    lines[at],
    'largest kernels of step 10 (the last warm-up step) in worker 0, 2 workers (cpu; the step 80.00 ms under the profiler, its kernels 65.00 ms):',
  );
  assert.equal(lines[at - 1], '');
  assert.match(lines[at + 1]!, /^kernel +ms +share +calls$/);
  assert.match(lines[at + 3]!, /^k0 +10\.00 +15\.4% +1$/);
  assert.match(lines[at + 12]!, /^k9 +1\.00 +1\.5% +10$/);
  assert.equal(lines.length - (at + 3), 10, 'ten kernels');
  const nan = benchmarkTables(
    report({
      results: [
        count(2, {
          profile: {
            ...profile!,
            kernels: [
              { name: 'a', ms: 4, calls: 1 },
              { name: 'b', ms: NaN, calls: 2 },
            ],
          },
        }),
      ],
    }),
  );
  assert.match(nan.at(-1)!, /^b +- +- +2$/);
  assert.match(nan.at(-2)!, /^a +4\.00 +100\.0% +1$/);
  const none = benchmarkTables(report({ results: [count(1, { profile: { ...profile!, kernels: [{ name: 'x', ms: NaN, calls: 1 }] } })] }));
  assert.equal(none.at(-1), '  the cpu backend gave no kernel times');
  assert.match(none.at(-2)!, /in worker 0, 1 worker \(cpu;/);
});
