// The header says once what reading did to the data that a user would not guess: a float64 or
// bool .npy converted to float32 / uint8, and feature rows reshaped to the model's input.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dataNotes } from '../../src/coordinator/run/run-header.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { memoryColumn } from '../../src/data/columns.ts';

/** An .npy file of `descr` written by hand (the writer only writes the dtypes it reads natively). */
function npy(file: string, descr: string, shape: number[], body: Buffer): void {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

test('conversions and reshapes are named; float32 rows that fit as they are give no note', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-'));
  npy(path.join(dir, 'x64.npy'), '<f8', [2, 4], Buffer.from(new Float64Array(8).fill(0.5).buffer));
  npy(path.join(dir, 'yb.npy'), '|b1', [2, 1], Buffer.from([1, 0]));
  writeNpy(path.join(dir, 'x32.npy'), { dtype: 'float32', shape: [2, 2, 2], data: new Float32Array(8) });
  const converted = {
    features: memoryColumn(readNpy(path.join(dir, 'x64.npy'))),
    labels: memoryColumn(readNpy(path.join(dir, 'yb.npy'))),
    count: 2,
    source: 'train.npy',
  };
  assert.deepEqual(dataNotes(converted, null, [null, 4]), [
    'features of train.npy are stored as float64, read as float32',
    'labels of train.npy are stored as bool, read as uint8',
  ]);
  const nd = { features: memoryColumn(readNpy(path.join(dir, 'x32.npy'))), labels: memoryColumn(readNpy(path.join(dir, 'yb.npy'))), count: 2, source: 'nd' };
  assert.deepEqual(dataNotes(nd, null, [null, 8]).at(-1), "feature rows of shape [2, 2] are reshaped to the model's input [8]");
  const plain = { ...nd, labels: memoryColumn({ dtype: 'float32' as const, shape: [2, 1], data: new Float32Array(2) }) };
  assert.deepEqual(dataNotes(plain, null, [null, 2, 2]), []);
  fs.rmSync(dir, { recursive: true });
});
