// The next batch is staged once, whoever asks first (dispatch or the first reply), and an error
// raised while staging from a reply handler is kept until the loop checks for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stageAhead } from '../../src/coordinator/stage-ahead.ts';

test('stages once however often run() is called', () => {
  let calls = 0;
  const ahead = stageAhead(() => void calls++);
  ahead.run();
  ahead.run();
  ahead.check();
  assert.equal(calls, 1);
});

test('an error while staging is kept for check(), not thrown by run()', () => {
  const ahead = stageAhead(() => {
    throw new Error('slab write failed');
  });
  assert.doesNotThrow(() => ahead.run());
  assert.throws(() => ahead.check(), /slab write failed/);
});

test('the last step has nothing to stage ahead', () => {
  const ahead = stageAhead(null);
  ahead.run();
  ahead.check();
});
