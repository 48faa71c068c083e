// Rank 0's roll call when a collective stalls: the ranks that answer the ping from their polling
// loop are present, the others (stopped, cut off) are named. Three ranks in one process over an
// in-memory stand-in for MPI's point-to-point messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MpiAddon } from '../../src/shared/mpi.ts';
import { RollCallAnswer, silentRanks } from '../../src/coordinator/devices/roll-call.ts';

/** One rank's view of a shared mailbox: isend posts, irecv matches by (from, tag) in order. */
function fakeWorld() {
  const mail: Array<{ from: number; to: number; tag: number; value: number }> = [];
  return (rank: number) => {
    const recvs = new Map<number, { from: number; tag: number; into: Int32Array; done: boolean }>();
    let next = 1;
    const addon: Partial<MpiAddon> = {
      isendInt(to, tag, value) {
        mail.push({ from: rank, to, tag, value });
        return next++;
      },
      irecvInt(from, tag, into) {
        recvs.set(next, { from, tag, into, done: false });
        return next++;
      },
      test(id) {
        const r = recvs.get(id);
        if (!r) return true;
        if (r.done) return true;
        const at = mail.findIndex((m) => m.to === rank && m.from === r.from && m.tag === r.tag);
        if (at < 0) return false;
        r.into[0] = mail.splice(at, 1)[0]!.value;
        return (r.done = true);
      },
    };
    return addon as MpiAddon;
  };
}

test('rank 2 answers from its polling loop, rank 1 (stopped) does not: rank 1 alone is named', async () => {
  const world = fakeWorld();
  const rank0 = world(0);
  new RollCallAnswer(world(1)); // posted, never polled: a stopped process
  const two = new RollCallAnswer(world(2));
  const polling = setInterval(() => two.poll(), 2);
  try {
    assert.deepEqual(await silentRanks(rank0, 3, 300), [1]);
  } finally {
    clearInterval(polling);
  }
});

test('every rank answers: nobody is named, and a second roll call works as the first', async () => {
  const world = fakeWorld();
  const rank0 = world(0);
  const answers = [new RollCallAnswer(world(1)), new RollCallAnswer(world(2))];
  const polling = setInterval(() => answers.forEach((a) => a.poll()), 2);
  try {
    assert.deepEqual(await silentRanks(rank0, 3, 300), []);
    assert.deepEqual(await silentRanks(rank0, 3, 300), []);
  } finally {
    clearInterval(polling);
  }
});
