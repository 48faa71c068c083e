// Which workers the BatchNorm relay waits for: those with rows in the micro-batch. A batch of 2
// over 3 ranks leaves rank 2 out of the step; with 2 micro-batches a shard of 1 row has none in
// the second; a retired rank (reshard) is out of `active` and is not waited for, nor does its
// death abandon an exchange it has no part in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchNormRelay } from '../../src/coordinator/engine/batch-norm-relay.ts';
import { fakeChild, fakeCluster, FakeWorkerSocket, settle } from '../helpers/relay-fakes.ts';

function relayOf(active: number[]) {
  const relay = new BatchNormRelay(fakeCluster());
  const group = { active };
  const sockets = [0, 1, 2].map((rank) => {
    const s = new FakeWorkerSocket();
    relay.attach(rank, fakeChild(s), group);
    return s;
  });
  return { group, sockets };
}

test('relay: a rank without rows in the step is not waited for', async () => {
  const { sockets } = relayOf([0, 1, 2]);
  for (const r of [0, 1]) sockets[r]!.send({ step: 0, batch: 2, micro: 1, k: 0, seq: 0, values: [r + 1] });
  await settle();
  assert.deepEqual(sockets[0]!.replies, [{ abandoned: false, seq: 0, values: [3] }]);
  assert.deepEqual(sockets[1]!.replies, [{ abandoned: false, seq: 0, values: [3] }]);
});

test('relay: a shard with no rows in micro-batch k is not waited for in it', async () => {
  const { sockets } = relayOf([0, 1, 2]);
  // Batch 5 over 3 ranks: 2, 2, 1 rows; 2 micro-batches: rank 2 has its row in k = 0 only.
  for (const r of [0, 1, 2]) sockets[r]!.send({ step: 0, batch: 5, micro: 2, k: 0, seq: 0, values: [1] });
  await settle();
  for (const r of [0, 1]) sockets[r]!.send({ step: 0, batch: 5, micro: 2, k: 1, seq: 0, values: [10] });
  await settle();
  assert.deepEqual(sockets[0]!.replies, [
    { abandoned: false, seq: 0, values: [3] },
    { abandoned: false, seq: 0, values: [20] },
  ]);
  assert.deepEqual(sockets[2]!.replies, [{ abandoned: false, seq: 0, values: [3] }]);
});

test('relay: a retired rank is not waited for', async () => {
  const { group, sockets } = relayOf([0, 1, 2]);
  group.active = [0, 2];
  for (const r of [0, 2]) sockets[r]!.send({ step: 3, batch: 4, micro: 1, k: 0, seq: 0, values: [r] });
  await settle();
  assert.deepEqual(sockets[2]!.replies, [{ abandoned: false, seq: 0, values: [2] }]);
});

test('relay: the death of a rank without rows in the exchange does not abandon it', async () => {
  const { sockets } = relayOf([0, 1, 2]);
  sockets[0]!.send({ step: 0, batch: 2, micro: 1, k: 0, seq: 0, values: [1] });
  await settle();
  sockets[2]!.destroy();
  await settle();
  sockets[1]!.send({ step: 0, batch: 2, micro: 1, k: 0, seq: 0, values: [2] });
  await settle();
  assert.deepEqual(sockets[0]!.replies, [{ abandoned: false, seq: 0, values: [3] }]);
});
