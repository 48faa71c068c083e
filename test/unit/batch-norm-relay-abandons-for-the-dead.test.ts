// A worker that dies closes its fd 5: every exchange that waits for it is answered `abandoned`
// (its peers finish the step alone; the step runs again), and so is any later request that would
// wait for it while it is down. While a rank waits on its peers the relay says so (its step
// deadline then waits once more). Once the rank is restarted (attached again), exchanges complete
// as before; the close of its old process, seen late, changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchNormRelay } from '../../src/coordinator/engine/batch-norm-relay.ts';
import { fakeChild, fakeCluster, FakeWorkerSocket, settle } from '../helpers/relay-fakes.ts';

test('relay: peers of a dead rank are answered abandoned, now and later, until it is back', async () => {
  const relay = new BatchNormRelay(fakeCluster());
  const group = { active: [0, 1, 2] };
  const sockets = [0, 1, 2].map(() => new FakeWorkerSocket());
  const waits = sockets.map((s, rank) => relay.attach(rank, fakeChild(s), group)!);
  const at = { step: 7, batch: 6, micro: 1, k: 0, seq: 0, values: [1] };
  sockets[0]!.send(at);
  await settle();
  assert.deepEqual(
    waits.map((w) => w()),
    [true, false, false],
    'rank 0 waits on its peers',
  );
  sockets[1]!.destroy(); // rank 1 dies
  await settle();
  assert.deepEqual(sockets[0]!.replies, [{ abandoned: true, seq: 0, values: [] }]);
  assert.equal(waits[0]!(), false, 'rank 0 waits no more');
  sockets[2]!.send(at); // rank 2 reaches the exchange after the death
  await settle();
  assert.deepEqual(sockets[2]!.replies, [{ abandoned: true, seq: 0, values: [] }]);

  // Rank 1 restarted: the step runs again and completes.
  const fresh = new FakeWorkerSocket();
  relay.attach(1, fakeChild(fresh), group);
  for (const s of [sockets[0]!, fresh, sockets[2]!]) s.send(at);
  await settle();
  assert.deepEqual(fresh.replies, [{ abandoned: false, seq: 0, values: [3] }]);
  assert.deepEqual(sockets[0]!.replies[1], { abandoned: false, seq: 0, values: [3] });
});

test("relay: an old process's close, seen after its rank was restarted, changes nothing", async () => {
  const relay = new BatchNormRelay(fakeCluster());
  const group = { active: [0, 1] };
  const old = new FakeWorkerSocket();
  const zero = new FakeWorkerSocket();
  relay.attach(0, fakeChild(zero), group);
  relay.attach(1, fakeChild(old), group);
  const fresh = new FakeWorkerSocket();
  relay.attach(1, fakeChild(fresh), group);
  zero.send({ step: 1, batch: 2, micro: 1, k: 0, seq: 0, values: [1] });
  await settle();
  old.destroy();
  await settle();
  assert.deepEqual(zero.replies, [], 'abandoned for the close of a process no longer rank 1');
  fresh.send({ step: 1, batch: 2, micro: 1, k: 0, seq: 0, values: [2] });
  await settle();
  assert.deepEqual(zero.replies, [{ abandoned: false, seq: 0, values: [3] }]);
});
