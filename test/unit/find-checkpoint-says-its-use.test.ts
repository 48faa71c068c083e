// An empty directory given to --resume says there is no checkpoint to resume from; given to eval
// or predict (--checkpoint), it says there is no model or checkpoint to load, and that a model
// directory such as runs/<name>/final will do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCheckpoint } from '../../src/coordinator/run/checkpoint.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('findCheckpoint: the message names what the directory was wanted for', () => {
  const dir = tempDir('find-checkpoint');
  assert.throws(
    () => findCheckpoint(dir),
    (e: Error & { code?: string; hint?: string }) =>
      e.code === 'E_USAGE' && e.message === `no checkpoint to resume from in ${dir}` && !e.hint!.includes('model.json'),
  );
  assert.throws(
    () => findCheckpoint(dir, 'load'),
    (e: Error & { code?: string; hint?: string }) =>
      e.code === 'E_USAGE' && e.message === `no model or checkpoint to load in ${dir}` && e.hint!.includes('a model directory (model.json inside'),
  );
});
