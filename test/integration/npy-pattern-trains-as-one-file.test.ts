// A split given as several .npy files (`features: ./x-*.npy`, `labels: ./y-*.npy`, matched in
// sorted order) trains to the same bits as the same rows in one file, with an eval fraction held
// out of it, on 2 workers; the files are cut at uneven row counts so batches cross the joins.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readNpy, writeNpy, type NdArray } from '../../src/shared/npy.ts';
import { finalWeights, writeConfigFile } from '../helpers/chaos.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

/** Rows [from, to) of `a`, by hand. */
function rows(a: NdArray, from: number, to: number): NdArray {
  const per = a.data.length / a.shape[0]!;
  return { dtype: a.dtype, shape: [to - from, ...a.shape.slice(1)], data: a.data.slice(from * per, to * per) };
}

test('x-*.npy / y-*.npy train to the bits of one x.npy / y.npy', () => {
  const dir = tempDir('npy-pattern');
  const one = writeDataset(dir, 'all', 90, 'onehot', 5);
  const x = readNpy(one.features);
  const y = readNpy(one.labels);
  // Cut at 0, 17, 60, 90: sorted names put part-0 first, whatever the cut.
  [0, 17, 60, 90].forEach((from, i, cuts) => {
    if (i === cuts.length - 1) return;
    writeNpy(path.join(dir, `x-part-${i}.npy`), rows(x, from, cuts[i + 1]!));
    writeNpy(path.join(dir, `y-part-${i}.npy`), rows(y, from, cuts[i + 1]!));
  });
  const model = writeModelModule(dir, 'mlp');
  const run = (name: string, train: Record<string, unknown>) => {
    const file = writeConfigFile(dir, name, {
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', ...train }, evalFraction: 0.2 },
      training: { batchSize: 14, epochs: 2 },
      optimizer: { name: 'adam', learningRate: 0.01 },
      runDir: path.join(dir, name),
    });
    const r = runCli(['train', file, '--simulate', '2', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    return finalWeights(path.join(dir, name));
  };
  const whole = run('whole', { features: one.features, labels: one.labels });
  const parts = run('parts', { features: path.join(dir, 'x-part-*.npy'), labels: path.join(dir, 'y-part-?.npy') });
  assert.ok(whole.equals(parts), 'the weights differ');
});
