// `mgpu-train benchmark --config` of a network by name that names no classes, on an image folder:
// the plain baseline builds the network with the folder's class count, as the workers do (it
// used to stop with E_CONFIG "model.classes: missing"), and both are timed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';
import { runCliAsync } from '../helpers/chaos.ts';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test("an image folder's class count reaches the plain baseline of a network by name", async () => {
  const dir = tempDir('benchmark-net-classes');
  await writeDigitFolder(path.join(dir, 'digits'), 30);
  fs.writeFileSync(
    path.join(dir, 'exp.yaml'),
    `model: { net: lenet }
loss: sparseCategoricalCrossentropy
data:
  train: { type: images, dir: ./digits, size: [28, 28], channels: 1 }
training: { batchSize: 4, epochs: 1 }
optimizer: { name: sgd }
`,
  );
  const json = path.join(dir, 'out.json');
  const args = ['benchmark', '--config', path.join(dir, 'exp.yaml'), '--workers', '1', '--batch', '4', '--steps', '2', '--warmup', '1'];
  const r = await runCliAsync([...args, '--simulate', '--backend', 'cpu', '--json', json, '--progress', 'plain'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(fs.readFileSync(json, 'utf8')) as BenchmarkReport;
  assert.ok(report.plain.imagesPerSec !== null && report.plain.imagesPerSec > 0, `plain baseline: ${JSON.stringify(report.plain)}`);
  assert.ok(report.results[0]!.imagesPerSec > 0);
});
