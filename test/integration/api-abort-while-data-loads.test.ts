// The library API's AbortSignal stops a run whose data module is still being read (here one that
// awaits forever), as Ctrl-C does: train() resolves at once with the stop request, saying the
// data was loading, and no worker is started. Before, the signal was only looked at once the
// data had loaded, which such a module never lets happen.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/api.ts';
import { waitFor, workerPids } from '../helpers/chaos.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

// The timeout is a net for a train() that never resolves (the module never ends), not the expected time.
test('aborting the AbortSignal while a data module awaits forever ends train(), before any worker', { timeout: 120_000 }, async (t) => {
  const dir = tempDir('api-abort-data');
  const module = path.join(dir, 'forever.mjs');
  fs.writeFileSync(
    module,
    "import fs from 'node:fs';\nexport default async function* () {\n  fs.writeFileSync(new URL(import.meta.url).pathname + '.started', '');\n  yield { x: [1, 2, 3, 4, 5, 6], y: [1, 0, 0] };\n  await new Promise(() => {});\n}\n",
  );
  const controller = new AbortController();
  const printed: string[] = [];
  const running = train(
    {
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'module', module, maxSamples: 1_000_000_000 } },
      training: { batchSize: 4, steps: 2 },
      optimizer: { name: 'sgd' },
      devices: { simulate: 2, backend: 'cpu' },
      runDir: path.join(dir, 'run'),
    },
    { signal: controller.signal, print: (line) => printed.push(line) },
  );
  await waitFor(() => fs.existsSync(`${module}.started`), 60_000, 'the module to be read');
  const t0 = Date.now();
  controller.abort(new Error('the user had enough'));
  const r = await running;
  const secs = (Date.now() - t0) / 1000;
  t.diagnostic(`train() resolved ${secs.toFixed(2)} s after the abort`);
  assert.deepEqual(r.stopped, { by: 'abort', reason: 'the user had enough' });
  assert.equal(r.steps, 0);
  assert.ok(
    printed.includes('stopped by the AbortSignal (the user had enough) while loading the data, before any step; no worker had started'),
    printed.join('\n'),
  );
  assert.deepEqual(workerPids(process.pid), new Map(), 'a worker was started');
});
