// MGPU_ALLREDUCE_CHUNK, the floats per chunk of the gradient allreduce: a malformed value is
// refused (E_CONFIG, naming the variable and the value); machines that cut the gradient into
// different chunks (their allreduces would not match) stop at the first step, naming the
// machine that differs, before anything crosses; the same chunk everywhere is checked once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from '../../src/coordinator/devices/cluster.ts';
import { allreduceChunk, DEFAULT_CHUNK, gradientCombine } from '../../src/coordinator/engine/overlapped-allreduce.ts';
import { MgpuError } from '../../src/shared/errors.ts';

/** A cluster of 3 whose machines chose `chunks`; counts its gathers and arrivals. */
function fakeCluster(chunks: number[]) {
  const calls = { gather: 0, arrive: 0 };
  const cluster = {
    rank: 0,
    size: chunks.length,
    where: (r: number) => `rank ${r} (node-${r})`,
    gather: async () => {
      calls.gather++;
      return chunks.map((c) => new Uint8Array(new Uint32Array([c]).buffer));
    },
    arrive: async () => {
      calls.arrive++;
    },
  } as unknown as Cluster;
  return { cluster, calls };
}

test('MGPU_ALLREDUCE_CHUNK: unset is the default, 0 and whole numbers are kept, anything else is refused', () => {
  assert.equal(allreduceChunk({}), DEFAULT_CHUNK);
  assert.equal(allreduceChunk({ MGPU_ALLREDUCE_CHUNK: '0' }), 0);
  assert.equal(allreduceChunk({ MGPU_ALLREDUCE_CHUNK: '65536' }), 65536);
  for (const bad of ['4MB', '-1', '1.5', '1e6', '4294967296']) {
    assert.throws(
      () => allreduceChunk({ MGPU_ALLREDUCE_CHUNK: bad }),
      (e: unknown) => e instanceof MgpuError && e.code === 'E_CONFIG' && e.message.includes(`MGPU_ALLREDUCE_CHUNK=${bad}`),
      bad,
    );
  }
});

test('machines with different chunks stop before the first allreduce, naming the one that differs', async () => {
  const { cluster, calls } = fakeCluster([1024, 1024, 4096]);
  await assert.rejects(
    gradientCombine(cluster, 0, 1024).ready(),
    (e: unknown) =>
      e instanceof MgpuError && e.code === 'E_CONFIG' && /rank 2 \(node-2\) cuts .* chunks of 4096 floats, rank 0 \(node-0\) into 1024/.test(e.message),
  );
  assert.equal(calls.arrive, 0, 'the step went on after the mismatch');
});

test('the same chunk everywhere: checked at the first step only', async () => {
  const { cluster, calls } = fakeCluster([1024, 1024, 1024]);
  await gradientCombine(cluster, 0, 1024).ready();
  await gradientCombine(cluster, 1, 1024).ready();
  assert.deepEqual(calls, { gather: 1, arrive: 2 });
});
