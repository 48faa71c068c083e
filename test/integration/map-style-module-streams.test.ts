// A map-style data module (`export default { length, get(i) }`, as a PyTorch Dataset) trains to
// the bits of the same samples in .npy files, on 3 workers with uneven shards and an eval fraction
// held out, while get() is called only for the rows of the steps run and those prefetched, never
// for the whole split before step 0.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { finalWeights, writeConfigFile } from '../helpers/chaos.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('a map-style module trains as its samples in .npy would, reading only the rows it needs', () => {
  const dir = tempDir('map-style');
  const npy = writeDataset(dir, 'train', 400, 'index', 3);
  const calls = path.join(dir, 'calls.txt');
  // The module reads the same .npy files by hand, one sample per get().
  fs.writeFileSync(
    path.join(dir, 'samples.mjs'),
    `import fs from 'node:fs';
const read = (f) => { const b = fs.readFileSync(f); const h = b.readUInt16LE(8); return new Uint8Array(b.subarray(10 + h)).buffer; };
const x = new Float32Array(read(${JSON.stringify(npy.features)}));
const y = new Int32Array(read(${JSON.stringify(npy.labels)}));
const F = x.length / y.length;
export default {
  length: y.length,
  async get(i) {
    fs.appendFileSync(${JSON.stringify(calls)}, i + '\\n');
    await new Promise((r) => setImmediate(r));
    return { x: x.subarray(i * F, (i + 1) * F), y: y[i] };
  },
};
`,
  );
  const model = writeModelModule(dir, 'mlp');
  const run = (name: string, train: Record<string, unknown>) => {
    const file = writeConfigFile(dir, name, {
      model: { module: model },
      loss: 'sparseCategoricalCrossentropy',
      data: { train, evalFraction: 0.1, prefetch: 2 },
      training: { batchSize: 10, steps: 6 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
      runDir: path.join(dir, name),
    });
    const r = runCli(['train', file, '--simulate', '3', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    return finalWeights(path.join(dir, name));
  };
  const fromNpy = run('npy', npy);
  const fromModule = run('module', { type: 'module', module: path.join(dir, 'samples.mjs') });
  assert.ok(fromModule.equals(fromNpy), 'the weights differ');
  const asked = new Set(fs.readFileSync(calls, 'utf8').trim().split('\n'));
  // Sample 0 (the shapes), 6 steps + 2 prefetched of 10 rows, and the final evaluation of the 40 held out.
  assert.ok(asked.size <= 1 + 8 * 10 + 40, `get() was asked for ${asked.size} of 400 samples`);
});
