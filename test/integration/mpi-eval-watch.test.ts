// Under MPI the machines take the same decisions from the same (allreduced) evaluation sums:
// 2 machines x 1 worker and 1 machine x 2 workers write the same best/, lower the rate and
// stop early at the same steps, and restore the same weights into final/, bit for bit; rank 0
// alone writes them. Run through the command line, which prints why the run stopped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-watch');
const over = {
  training: { batchSize: 8, epochs: 20, seed: 3, earlyStopping: { monitor: 'eval.loss', patience: 2, minDelta: 0.01, restoreBest: true } },
  schedule: { name: 'plateau', factor: 0.5, patience: 2, minDelta: 0.02 },
  checkpoint: { best: { monitor: 'eval.accuracy' } },
};
const onMachines = (m: number, name: string) => {
  const file = writeConfigFile(dir, name, { ...scenario(dir, name, over), devices: { simulate: m === 2 ? 1 : 2, backend: 'cpu' } });
  return m === 2 ? runMpi(2, ['train', file]) : runCliAsync(['train', file]);
};
const watchLines = (runDir: string) => metricsOf(runDir).lines.filter((l) => ['best', 'stop', 'lr', 'restore'].includes(l.type));
const files = (runDir: string) =>
  Object.fromEntries(['best/weights.bin', 'best/best.json', 'final/weights.bin'].map((f) => [f, fs.readFileSync(path.join(runDir, f))]));

test('2 machines x 1 worker and 1 machine x 2 workers: the same best/, rate changes, stop and final/', async (t) => {
  if (!needMpi(t)) return;
  const two = await onMachines(2, 'two');
  assert.equal(two.code, 0, two.stderr);
  const one = await onMachines(1, 'one');
  assert.equal(one.code, 0, one.stderr);
  const lines = watchLines(path.join(dir, 'two'));
  t.diagnostic(lines.map((l) => `${l.type}@${l.step}`).join(' '));
  assert.ok(
    lines.some((l) => l.type === 'stop') && lines.some((l) => l.type === 'lr') && lines.some((l) => l.type === 'restore'),
    'the run lowers its rate, stops early and restores',
  );
  assert.deepEqual(lines, watchLines(path.join(dir, 'one')));
  assert.deepEqual(files(path.join(dir, 'two')), files(path.join(dir, 'one')));
  const stop = lines.find((l) => l.type === 'stop')!;
  assert.ok(two.stdout.includes(stop.message as string), 'rank 0 prints why the run stopped');
  assert.equal(two.stdout.split(stop.message as string).length, 2, 'once');
  assert.ok(!/\n\s+at .*\(.*\.ts:\d+/.test(two.stdout + two.stderr), 'no stack trace');
});
