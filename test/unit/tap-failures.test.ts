// scripts/tap-failures.ts keeps each failed test's TAP block (a nested subtest's too) and nothing
// of the tests that passed, so that test-lanes can print what failed at the end of a long run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLOCK_LINES, tapFailures } from '../../scripts/tap-failures.ts';

const STREAM = `TAP version 13
# Subtest: passes
ok 1 - passes
  ---
  duration_ms: 3
  ...
# Subtest: parent
    # Subtest: child fails
    not ok 1 - child fails
      ---
      error: 'boom'
      ...
not ok 2 - parent
  ---
  error: '1 subtest failed'
  ...
# Subtest: after
ok 3 - after
  ---
  duration_ms: 1
  ...`.split('\n');

test('the failed blocks, nested ones included, with the prefix; passing tests left out', () => {
  const f = tapFailures();
  const read = f.reader('[lane] ');
  STREAM.forEach(read);
  assert.deepEqual(f.blocks, [
    ['[lane]     not ok 1 - child fails', '[lane]       ---', "[lane]       error: 'boom'", '[lane]       ...'],
    ['[lane] not ok 2 - parent', '[lane]   ---', "[lane]   error: '1 subtest failed'", '[lane]   ...'],
  ]);
});

test('two streams read side by side keep their own blocks', () => {
  const f = tapFailures();
  const a = f.reader('a ');
  const b = f.reader('b ');
  a('not ok 1 - x');
  b('ok 1 - y');
  a('  ---');
  b('  ...');
  a('  ...');
  b('not ok 2 - z');
  assert.deepEqual(f.blocks, [['a not ok 1 - x', 'a   ---', 'a   ...'], ['b not ok 2 - z']]);
});

test('a long block is cut at BLOCK_LINES, and the next failure is still found', () => {
  const f = tapFailures();
  const read = f.reader('');
  read('not ok 1 - long');
  for (let i = 0; i < 200; i++) read(`  at frame ${i}`);
  read('  ...');
  read('not ok 2 - next');
  assert.equal(f.blocks[0]!.length, BLOCK_LINES);
  assert.deepEqual(f.blocks[1], ['not ok 2 - next']);
});
