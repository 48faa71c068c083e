// The run header of an .npy pattern split: a line per pattern with the files it matched (count,
// first, last) and the array they make (dtype, shape); how the rows are read (mapped, or with
// pread under MGPU_MMAP=0, never "mapped" then); and counts of one in the singular.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readNpy, writeNpy, type NdArray } from '../../src/shared/npy.ts';
import { writeConfigFile } from '../helpers/chaos.ts';
import { runCli } from '../helpers/run-cli.ts';
import { FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('header-npy-files');
const one = writeDataset(dir, 'all', 8, 'index', 3);
const rows = (a: NdArray, from: number, to: number): NdArray => {
  const per = a.data.length / a.shape[0]!;
  return { dtype: a.dtype, shape: [to - from, ...a.shape.slice(1)], data: a.data.slice(from * per, to * per) };
};
[0, 3, 8].forEach((from, i, cuts) => {
  if (i === cuts.length - 1) return;
  writeNpy(path.join(dir, `x-${i}.npy`), rows(readNpy(one.features), from, cuts[i + 1]!));
});

function header(name: string, env: NodeJS.ProcessEnv): string {
  const file = writeConfigFile(dir, name, {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'npy', features: path.join(dir, 'x-*.npy'), labels: one.labels } },
    training: { batchSize: 8, steps: 1 },
    optimizer: { name: 'sgd' },
    runDir: path.join(dir, name),
  });
  const r = runCli(['train', file, '--simulate', '1', '--backend', 'cpu'], { env: { ...process.env, ...env } });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout + r.stderr;
}

test('an npy pattern lists its files, the rows are said to be mapped, one step is singular', () => {
  const out = header('mapped', {});
  assert.ok(out.includes(`files       features ${path.join(dir, 'x-*.npy')}: 2 files, x-0.npy ... x-1.npy, float32 [8, ${FEATURES}]`), out);
  assert.match(out, /data {8}8 training samples; 1 step per epoch, 1 step; mapped from its files/);
});

test('with MGPU_MMAP=0 the header says pread, not mapped', () => {
  const out = header('pread', { MGPU_MMAP: '0' });
  const data = out.split('\n').find((l) => l.trimStart().startsWith('data ')) ?? '';
  assert.match(data, /read from its files with pread, not mapped \(turned off by MGPU_MMAP=0\)/);
  assert.doesNotMatch(data, /mapped from/);
});
