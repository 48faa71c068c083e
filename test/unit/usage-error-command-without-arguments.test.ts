// An argument given to a command that takes none (`mgpu-train nets extra`) is said so, not as
// "(nets takes )"; a command that takes some names them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageError } from '../../src/cli/command-usage.ts';

test('nets and devices take no arguments; report takes <run>', () => {
  assert.equal(usageError('Unknown argument: extra', ['nets', 'extra'], []).message, 'nets: unexpected argument "extra" (nets takes no arguments)');
  assert.equal(usageError('Unknown argument: foo', ['devices', 'foo'], []).message, 'devices: unexpected argument "foo" (devices takes no arguments)');
  assert.equal(usageError('Unknown argument: b', ['report', 'a', 'b'], ['watch']).message, 'report: unexpected argument "b" (report takes <run>)');
});
