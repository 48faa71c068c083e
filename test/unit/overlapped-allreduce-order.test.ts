// The gradient allreduce overlaps the machine's sum: chunk k's allreduce is started as soon as
// chunk k is summed, before chunk k+1 is summed and while it is still in flight; the chunks
// tile the vector once, in order; nothing crosses before ready() (the arrival check) is done;
// chunk 0 (MGPU_ALLREDUCE_CHUNK=0) is one allreduce of the whole sum once it is complete.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overlappedAllreduce, type Combine } from '../../src/coordinator/engine/overlapped-allreduce.ts';

function recorder(chunk: number) {
  const log: string[] = [];
  let readyDone = false;
  const combine: Combine = {
    chunk,
    ready: async () => {
      await new Promise((r) => setTimeout(r, 5));
      readyDone = true;
      log.push('ready');
    },
    sum: (part) => {
      assert.ok(readyDone, 'an allreduce was started before ready() completed');
      log.push(`post ${part.byteOffset / 4}+${part.length}`);
      // The network: each allreduce completes 50 ms after it was started.
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          log.push(`done ${part.byteOffset / 4}`);
          resolve();
        }, 50),
      );
    },
  };
  const sumRange = async (s: number, e: number) => void log.push(`sum ${s}-${e}`);
  return { log, combine, sumRange };
}

test('chunks of 4 over 10 floats: each summed, then posted, the next summed while it is in flight', async () => {
  const r = recorder(4);
  await overlappedAllreduce(new Float32Array(10), r.sumRange, r.combine);
  assert.deepEqual(r.log.slice(-3).sort(), ['done 0', 'done 4', 'done 8'], 'it resolved before every chunk had crossed');
  const order = r.log.filter((l) => !l.startsWith('done') && l !== 'ready');
  assert.deepEqual(order, ['sum 0-4', 'post 0+4', 'sum 4-8', 'post 4+4', 'sum 8-10', 'post 8+2']);
  assert.ok(r.log.indexOf('sum 4-8') < r.log.indexOf('done 0'), `chunk 1 was summed only after chunk 0 had crossed: ${r.log.join(', ')}`);
  assert.ok(r.log.indexOf('ready') < r.log.indexOf('post 0+4'));
});

test('chunk 0: the whole vector summed, then one allreduce', async () => {
  const r = recorder(0);
  await overlappedAllreduce(new Float32Array(10), r.sumRange, r.combine);
  assert.deepEqual(r.log, ['sum 0-10', 'ready', 'post 0+10', 'done 0']);
});
