// The mistakes of a file pattern (`features: ./x-*.npy`) each get a message naming the key and
// the files: no match (at config time, naming the folder), a wildcard in the folder, parts whose
// rows differ in shape or dtype, and features and labels patterns of different sample counts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDataset } from '../../src/data/dataset.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { writeNpy } from '../../src/shared/npy.ts';

const f32 = (rows: number, cols: number) => ({ dtype: 'float32' as const, shape: [rows, cols], data: new Float32Array(rows * cols) });

test('pattern mistakes are named with their key and files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-pattern-errors-'));
  try {
    writeNpy(path.join(dir, 'x-0.npy'), f32(4, 3));
    writeNpy(path.join(dir, 'x-1.npy'), f32(5, 2));
    writeNpy(path.join(dir, 'y-0.npy'), f32(4, 1));
    writeNpy(path.join(dir, 'y-1.npy'), f32(4, 1));
    const cfg = (features: string) => ({
      model: { module: 'm.mjs' },
      loss: 'meanSquaredError',
      data: { train: { type: 'npy', features, labels: './y-*.npy' } },
      training: { batchSize: 2 },
    });
    fs.writeFileSync(path.join(dir, 'm.mjs'), 'export default () => null;\n');
    assert.throws(() => validateConfig(cfg('./z-*.npy'), { configPath: null, cwd: dir }), /data\.train\.features: no file in .* matches z-\*\.npy/);
    assert.throws(() => validateConfig(cfg('./*/x.npy'), { configPath: null, cwd: dir }), /data\.train\.features: .* has a wildcard in its folder/);
    const src = { type: 'npy' as const, features: path.join(dir, 'x-*.npy'), labels: path.join(dir, 'y-*.npy') };
    await assert.rejects(
      loadDataset(src, 'data.train'),
      /data\.train\.features: .*x-1\.npy holds float32 rows of shape \[2\] but .*x-0\.npy holds float32 rows of shape \[3\]/,
    );
    writeNpy(path.join(dir, 'x-1.npy'), f32(5, 3));
    await assert.rejects(loadDataset(src, 'data.train'), /features 2 files .*x-\*\.npy hold 9 samples but labels 2 files .*y-\*\.npy hold 8/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
