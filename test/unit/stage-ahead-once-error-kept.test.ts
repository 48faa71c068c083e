// The next batch is staged once, whoever asks first (dispatch or the first reply), and an error
// raised while staging from a reply handler is kept until the loop checks for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stageAhead } from '../../src/coordinator/engine/stage-ahead.ts';

test('stages nothing until run(), then once however often run() is called', () => {
  let calls = 0;
  const ahead = stageAhead(() => {
    calls++;
  });
  assert.equal(calls, 0, 'staged before run()');
  ahead.run();
  assert.equal(calls, 1);
  ahead.run();
  ahead.run();
  assert.doesNotThrow(() => ahead.check());
  assert.equal(calls, 1, 'staged more than once');
});

test('an error while staging is kept for check(), not thrown by run() in a reply handler, and not retried', async () => {
  const failure = new Error('slab write failed');
  let calls = 0;
  const ahead = stageAhead(() => {
    calls++;
    throw failure;
  });
  // As the loop does: the first reply's handler runs it, outside the loop's try.
  await new Promise<void>((resolve, reject) =>
    setImmediate(() => {
      try {
        ahead.run();
        resolve();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    }),
  );
  assert.doesNotThrow(() => ahead.run(), 'the second run() (dispatch) threw');
  assert.equal(calls, 1, 'a failed staging was retried');
  assert.throws(
    () => ahead.check(),
    (err) => err === failure,
    'check() does not throw the staging error',
  );
});

test('check() throws nothing when staging succeeded', () => {
  const ahead = stageAhead(() => {});
  ahead.run();
  assert.doesNotThrow(() => ahead.check());
});

test('the last step has nothing to stage ahead: run() and check() do nothing and throw nothing', () => {
  const ahead = stageAhead(null);
  assert.doesNotThrow(() => ahead.run());
  assert.doesNotThrow(() => ahead.check());
});
