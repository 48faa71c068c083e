import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSeededMathRandom, withSeededMathRandomAsync } from '../../src/shared/rng.ts';

const draw = (k: number) => Array.from({ length: k }, () => Math.random());

test('withSeededMathRandom makes Math.random repeatable per seed and restores it', () => {
  const original = Math.random;
  const a = withSeededMathRandom(11, () => draw(5));
  assert.equal(Math.random, original);
  assert.deepEqual(
    withSeededMathRandom(11, () => draw(5)),
    a,
  );
  assert.notDeepEqual(
    withSeededMathRandom(12, () => draw(5)),
    a,
  );
  assert.ok(a.every((x) => x >= 0 && x < 1));
  // Pinned: a change alters every run's initial weights.
  assert.deepEqual(
    withSeededMathRandom(0, () => draw(2)),
    [0.9381234629545361, 0.01724525704048574],
  );
});

test('withSeededMathRandom restores Math.random after a throw', () => {
  const original = Math.random;
  assert.throws(
    () =>
      withSeededMathRandom(1, () => {
        throw new Error('boom');
      }),
    /boom/,
  );
  assert.equal(Math.random, original);
});

test('withSeededMathRandom refuses a promise-returning fn, restored', async () => {
  const original = Math.random;
  assert.throws(() => withSeededMathRandom(1, async () => 1), /use withSeededMathRandomAsync/);
  assert.equal(Math.random, original);
});

test('withSeededMathRandomAsync stays seeded across awaits and restores after resolve and reject', async () => {
  const original = Math.random;
  const tick = () => new Promise((r) => setTimeout(r, 1));
  const run = () =>
    withSeededMathRandomAsync(11, async () => {
      const first = draw(2);
      await tick();
      return [...first, ...draw(3)];
    });
  const a = await run();
  assert.equal(Math.random, original);
  assert.deepEqual(
    a,
    withSeededMathRandom(11, () => draw(5)),
  );
  assert.deepEqual(await run(), a);

  await assert.rejects(
    withSeededMathRandomAsync(1, async () => {
      await tick();
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(Math.random, original);
});

test('withSeededMathRandomAsync rejects an overlapping scope and leaves Math.random intact', async () => {
  const original = Math.random;
  const first = withSeededMathRandomAsync(1, () => new Promise((r) => setTimeout(r, 5)));
  await assert.rejects(
    withSeededMathRandomAsync(2, async () => 0),
    /another seeded scope is still running/,
  );
  await first;
  assert.equal(Math.random, original);
});
