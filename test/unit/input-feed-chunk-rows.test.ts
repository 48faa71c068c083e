// An evaluation or prediction chunk's rows: made ready (epoch 0: never augmented) with the next
// chunk's started, released by done(); a row that could not be made is a DataError even under
// data.onBadSample: skip (an evaluation covers every sample); rows in memory need nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkRows } from '../../src/coordinator/input-feed.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import { DataError } from '../../src/shared/errors.ts';

function recording(bad: number[] = []) {
  const log: string[] = [];
  const key = (i: Uint32Array, e: number) => `${[...i].join(',')}@${e}`;
  const p: RowPipeline = {
    prefetch: (i, e) => void log.push(`prefetch ${key(i, e)}`),
    ready: (i, e) => (log.push(`ready ${key(i, e)}`), Promise.resolve()),
    isReady: () => true,
    failed: (i) => [...i].flatMap((s, at) => (bad.includes(s) ? [{ at, message: `sample ${s} is corrupt` }] : [])),
    release: (i, e) => void log.push(`release ${key(i, e)}`),
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  const column = memoryColumn({ dtype: 'float32', shape: [8, 1], data: new Float32Array(8) });
  const ds: Dataset = { features: column, labels: column, count: 8, source: 'test', pipeline: p };
  return { ds, log };
}

test("a chunk's rows made with the next one's started, released once read", async () => {
  const { ds, log } = recording();
  const { done } = await chunkRows(ds, Uint32Array.of(0, 1, 2), Uint32Array.of(3, 4, 5), 30);
  assert.deepEqual(log.splice(0), ['prefetch 0,1,2@0', 'prefetch 3,4,5@0', 'ready 0,1,2@0']);
  done();
  assert.deepEqual(log, ['release 0,1,2@0']);
  const last = recording();
  await chunkRows(last.ds, Uint32Array.of(6, 7), null, 30);
  assert.deepEqual(last.log, ['prefetch 6,7@0', 'ready 6,7@0'], 'the last chunk: nothing after it to start');
});

test('a bad row in a chunk is a DataError: an evaluation covers every sample', async () => {
  const { ds } = recording([4, 5]);
  await assert.rejects(chunkRows(ds, Uint32Array.of(3, 4, 5), null, 30), (err: unknown) => {
    assert.ok(err instanceof DataError);
    assert.equal(err.message, 'sample 4 is corrupt');
    assert.match(err.hint ?? '', /leaves bad samples out of training only: an evaluation or a prediction covers every sample/);
    return true;
  });
});

test('a pipeline that cannot fail rows (no failed()): the chunk is made', async () => {
  const { ds, log } = recording();
  delete ds.pipeline!.failed;
  const { done } = await chunkRows(ds, Uint32Array.of(1, 2), null, 30);
  done();
  assert.deepEqual(log, ['prefetch 1,2@0', 'ready 1,2@0', 'release 1,2@0']);
});

test('rows in memory: nothing to make, nothing to release', async () => {
  const column = memoryColumn({ dtype: 'float32', shape: [2, 1], data: new Float32Array(2) });
  const { done } = await chunkRows({ features: column, labels: column, count: 2, source: 'test' }, Uint32Array.of(0, 1), null, 30);
  assert.doesNotThrow(done);
});
