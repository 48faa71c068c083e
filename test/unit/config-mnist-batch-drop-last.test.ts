// An mnist split smaller than one batch, with dropLast, would train on nothing: refused at
// training.batchSize, the hint naming both ways out; without dropLast it is one short batch.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-mnist-drop-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });
const mnist = (count: number, batchSize: number, dropLast: boolean) =>
  minimalConfig({ data: { train: { type: 'mnist', count } }, training: { batchSize, dropLast } });

test('a batch larger than the mnist split is refused with dropLast, accepted without', () => {
  rejects(
    mnist(500, 600, true),
    'training.batchSize',
    /^training\.batchSize: 600 is more than the 500 training samples, and dropLast drops that one short batch$/,
    /^lower training\.batchSize, or set training\.dropLast: false$/,
  );
  assert.equal(validate(mnist(500, 600, false)).training.batchSize, 600);
  assert.equal(validate(mnist(500, 500, true)).training.batchSize, 500);
});
