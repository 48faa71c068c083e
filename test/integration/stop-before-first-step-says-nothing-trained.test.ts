// A run stopped while its first step waits for its rows trained nothing: its line says so, and
// that the same command starts it again, instead of "after step 0" (a step it never trained)
// or a checkpoint and --resume it does not have. (The first step waits on a map-style get()
// that never settles; the library API's AbortSignal stops it.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train, type ConfigInput } from '../../src/api.ts';
import { waitFor } from '../helpers/chaos.ts';
import { writeHangingModule } from '../helpers/hanging-get.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

test('stopped before the first step: the line says no step was trained and names no checkpoint', { timeout: 180_000 }, async () => {
  const dir = tempDir('stop-before-first-step');
  const { module, marker, hangFlag } = writeHangingModule(dir, 'first', "epoch === 0 && split === 'data.train'");
  const runDir = path.join(dir, 'run');
  const lines: string[] = [];
  const controller = new AbortController();
  const config: ConfigInput = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'module', module }, prefetch: 1 },
    training: { batchSize: 8, epochs: 2, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    devices: { simulate: 1, backend: 'cpu' },
    runDir,
  };
  const running = train(config, { signal: controller.signal, print: (l) => void lines.push(l) });
  await waitFor(() => fs.existsSync(marker), 120_000, 'get(5) of the first epoch waiting');
  controller.abort(new Error('enough'));
  const r = await running;
  assert.equal(r.steps, 0);
  const stop = lines.find((l) => l.startsWith('stopped by'));
  assert.ok(stop, lines.join('\n'));
  assert.match(stop, /^stopped by .*enough.* before step 1 finished: no step was trained, so there is no checkpoint; run the same command to start again$/);
  assert.ok(!fs.existsSync(path.join(runDir, 'checkpoints')), 'a checkpoint was written');
  // As the line says, the same call starts it again there.
  fs.rmSync(hangFlag);
  const again = await train(config, { print: false });
  assert.equal(again.steps, 2);
});
