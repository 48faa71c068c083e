// The BatchNorm relay answers a request only once every worker with rows in that micro-batch has
// sent it, and answers every one of them with the same sums, added in rank order whatever order
// the requests came in (so a run is bit-identical from one time to the next): values chosen so
// that another order gives other bits. Requests split across socket reads are put back together.
// Ranks that send sums of different lengths (never the same model) are answered `abandoned`, and
// the relay says why on stderr. A worker spawned without fd 5 is not read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchNormRelay } from '../../src/coordinator/engine/batch-norm-relay.ts';
import { fakeChild, fakeCluster, FakeWorkerSocket, settle } from '../helpers/relay-fakes.ts';

test('relay: sums in rank order, the same to each rank, once all have asked', async () => {
  const relay = new BatchNormRelay(fakeCluster());
  const group = { active: [0, 1, 2] };
  const sockets = [0, 1, 2].map((rank) => {
    const s = new FakeWorkerSocket();
    relay.attach(rank, fakeChild(s), group);
    return s;
  });
  const at = { step: 4, batch: 9, micro: 1, k: 0, seq: 0 };
  // Rank order: (1e16 + 1) - 1e16 = 0 in float64; 2 then 0 then 1 would give (-1e16 + 1e16) + 1 = 1.
  sockets[2]!.send({ ...at, values: [-1e16, 5] }, 7);
  sockets[0]!.send({ ...at, values: [1e16, 1] });
  await settle();
  assert.deepEqual(
    sockets.map((s) => s.replies.length),
    [0, 0, 0],
    'answered before rank 1 asked',
  );
  sockets[1]!.send({ ...at, values: [1, 2] }, 3);
  await settle();
  for (const [rank, s] of sockets.entries()) assert.deepEqual(s.replies, [{ abandoned: false, seq: 0, values: [0, 8] }], `rank ${rank}`);
  // The next exchange of the same micro-batch is another key.
  for (const s of sockets) s.send({ ...at, seq: 1, values: [1] });
  await settle();
  for (const s of sockets) assert.deepEqual(s.replies[1], { abandoned: false, seq: 1, values: [3] });
});

test('relay: sums of different lengths are abandoned, saying so', async (t) => {
  const relay = new BatchNormRelay(fakeCluster());
  const group = { active: [0, 1] };
  const sockets = [0, 1].map((rank) => {
    const s = new FakeWorkerSocket();
    relay.attach(rank, fakeChild(s), group);
    return s;
  });
  const said: string[] = [];
  t.mock.method(console, 'error', (line: string) => void said.push(line));
  sockets[0]!.send({ step: 2, batch: 4, micro: 1, k: 0, seq: 3, values: [1, 2] });
  sockets[1]!.send({ step: 2, batch: 4, micro: 1, k: 0, seq: 3, values: [1] });
  await settle();
  for (const s of sockets) assert.deepEqual(s.replies, [{ abandoned: true, seq: 3, values: [] }]);
  assert.equal(said.length, 1);
  assert.match(said[0]!, /^E_INTERNAL step 3: BatchNorm statistics \(exchange 3 of micro-batch 0\): rank 1 sent 1 values, rank 0 2/);
});

test('relay: a worker without fd 5 is not read', () => {
  const relay = new BatchNormRelay(fakeCluster());
  assert.equal(relay.attach(0, { stdio: [null, null, null, null, null] } as never, { active: [0] }), undefined);
});
