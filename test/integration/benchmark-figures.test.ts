// `mgpu-train benchmark --config` on a tiny model and synthetic rows, 1 and 2 simulated workers:
// every figure is there and sane (a rate per count and the plain baseline's, its +/- and jitter,
// the scaling, where a step goes), the JSON holds all of it, and the table is printed. Presence
// and sanity only: nothing here asserts a speed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { CLASSES, FEATURES, tempDir, writeModelModule } from '../helpers/train-fixture.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';

const dir = tempDir('benchmark-figures');
const config = writeConfigFile(dir, 'tiny', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'synthetic', shape: [FEATURES], classes: CLASSES, count: 16 }, eval: { type: 'synthetic', shape: [FEATURES], classes: CLASSES } },
  training: { batchSize: 4, epochs: 1 },
  optimizer: { name: 'sgd' },
  checkpoint: { every: 1 },
});
const json = path.join(dir, 'out.json');
const STEPS = 4;
const WARMUP = 2;
const BATCH = 3;

test('1 and 2 workers: a rate, its +/- and jitter, the scaling and the phases of each, the plain baseline beside, all in the JSON', async () => {
  const args = ['benchmark', '--config', config, '--workers', '1,2', '--batch', String(BATCH), '--steps', String(STEPS), '--warmup', String(WARMUP)];
  const r = await runCliAsync([...args, '--simulate', '--backend', 'cpu', '--json', json, '--progress', 'plain'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(fs.readFileSync(json, 'utf8')) as BenchmarkReport;
  assert.deepEqual(
    report.results.map((c) => [c.workers, c.globalBatch, c.measuredSteps, c.stepMs.length]),
    [
      [1, BATCH, STEPS, STEPS],
      [2, 2 * BATCH, STEPS, STEPS],
    ],
  );
  for (const c of report.results) {
    assert.ok(c.imagesPerSec > 0 && Number.isFinite(c.imagesPerSec), `imagesPerSec ${c.imagesPerSec}`);
    assert.ok(c.rate.stderr >= 0 && c.rate.jitter >= 0 && c.rate.min <= c.rate.median && c.rate.median <= c.rate.max);
    assert.ok(c.rate.min <= c.imagesPerSec && c.imagesPerSec <= c.rate.max, 'the mean lies among the per-step rates');
    assert.ok(c.totalImagesPerSec > 0);
    assert.ok(c.stepMs.every((ms) => ms > 0));
    const f = c.phases;
    for (const [k, v] of Object.entries(f)) assert.ok(Number.isFinite(v) && (k === 'controlMs' || v >= 0), `${k} ${v}`);
    assert.ok(f.computeSlowestMs >= f.computeFastestMs && f.stepMs >= f.computeSlowestMs, JSON.stringify(f));
    assert.ok(f.computeSlowestMs >= f.weightsInMs && f.computeSlowestMs >= f.gradientsOutMs);
    assert.equal(c.profile, null, 'profiled without --profile');
    assert.ok(c.vsPlain !== null && c.vsPlain > 0);
  }
  assert.equal(report.results[0]!.efficiency, 1);
  assert.ok(report.results[1]!.efficiency! > 0);
  if (report.plain.skipped !== null) assert.fail(`plain tfjs not timed: ${report.plain.skipped}`);
  assert.ok(report.plain.imagesPerSec > 0);
  assert.equal(report.plain.batch, BATCH);
  assert.equal(report.plain.measuredSteps, STEPS);
  assert.deepEqual(report.plain.inputShape, [FEATURES]);
  assert.equal(report.plain.backend, 'cpu');
  assert.deepEqual([report.batchPerWorker, report.steps, report.warmup, report.simulated, report.backend], [BATCH, STEPS, WARMUP, true, 'cpu']);
  assert.equal(report.machine.cpus > 0 && report.machine.loadAverage.length, 3);
  // The table: a row each, the plain baseline's first, and the phases.
  assert.match(r.stdout, /^plain tfjs, 1 process \(cpu\) +3 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +100%$/m);
  assert.match(r.stdout, /^mgpu-train, 1 worker +3 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +100% +\d+%$/m);
  assert.match(r.stdout, /^mgpu-train, 2 workers +6 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +\d+% +\d+%$/m);
  assert.match(r.stdout, /^workers +step +slowest worker +fastest worker +weights in +gradients out +sum \+ update +data +data wait +control$/m);
  assert.match(r.stdout, /^batch 3 per worker \(global batch: 3 x workers\), 4 steps measured after 2 warm-up/m);
  // The progress said what it was doing.
  assert.match(r.stdout, /^step 6\/6 2 workers: [\d.]+ images\/s so far$/m);
  // The runs went to scratch directories: nothing under the working directory's runs/.
  assert.ok(!fs.existsSync(path.join(dir, 'runs')));
});
