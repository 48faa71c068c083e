// `mgpu-train benchmark --profile`: the last warm-up step of worker 0 runs under tf.profile, and
// its kernels, summed by name, the longest first, are in the JSON and in a table; the measured
// steps are not profiled.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { CLASSES, FEATURES, tempDir, writeModelModule } from '../helpers/train-fixture.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';

const dir = tempDir('benchmark-profile');
const config = writeConfigFile(dir, 'tiny', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'synthetic', shape: [FEATURES], classes: CLASSES, count: 8 } },
  training: { batchSize: 4, epochs: 1 },
  optimizer: { name: 'sgd' },
});
const json = path.join(dir, 'out.json');

test('the largest kernels of the last warm-up step in worker 0', async () => {
  const args = ['benchmark', '--config', config, '--workers', '1', '--batch', '4', '--steps', '2', '--warmup', '2', '--profile'];
  const r = await runCliAsync([...args, '--simulate', '--backend', 'cpu', '--json', json, '--progress', 'plain'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const profile = (JSON.parse(fs.readFileSync(json, 'utf8')) as BenchmarkReport).results[0]!.profile;
  assert.ok(profile, 'no profile in the JSON');
  assert.equal(profile.step, 1, 'the last warm-up step (0-based)');
  assert.equal(profile.backend, 'cpu');
  const names = profile.kernels.map((k) => k.name);
  // A dense layer's forward and backward: its matmuls at least, each kernel named once.
  assert.ok(
    names.some((n) => /MatMul/.test(n)),
    names.join(' '),
  );
  assert.equal(new Set(names).size, names.length);
  const ms = profile.kernels.map((k) => k.ms);
  assert.deepEqual(
    ms,
    [...ms].sort((a, b) => b - a),
    'the longest first',
  );
  assert.ok(profile.kernels.every((k) => k.calls >= 1 && k.ms >= 0));
  assert.match(r.stdout, /^largest kernels of step 2 \(the last warm-up step\) in worker 0, 1 worker \(cpu; /m);
  assert.match(r.stdout, /^kernel +ms +share +calls$/m);
});
