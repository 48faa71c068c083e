// Who is still there: when a collective (an allreduce, a gather) does not complete in time, rank
// 0 cannot tell from it which machine holds it up. So rank 0 calls the roll: it sends every
// other rank a ping, and ranks that wait in a collective answer it from their polling loop. A
// rank that does not answer within ROLL_CALL_MS is the one that stalled, died or lost its
// network, and is named.
import type { MpiAddon } from '../../shared/mpi.ts';

const PING_TAG = 0x5049; // 'PI'
const PONG_TAG = 0x504f; // 'PO'
export const ROLL_CALL_MS = 2000;

/** On ranks other than 0: one ping receive posted at all times, answered whenever polled. */
export class RollCallAnswer {
  private readonly into = new Int32Array(1);
  private id: number;
  constructor(private readonly mpi: MpiAddon) {
    this.id = mpi.irecvInt(0, PING_TAG, this.into);
  }
  poll(): void {
    if (!this.mpi.test(this.id)) return;
    this.mpi.isendInt(0, PONG_TAG, this.into[0]!);
    this.id = this.mpi.irecvInt(0, PING_TAG, this.into);
  }
}

let round = 0;
/** On rank 0: the ranks that do not answer a ping within ROLL_CALL_MS. */
export async function silentRanks(mpi: MpiAddon, size: number, ms = ROLL_CALL_MS): Promise<number[]> {
  round++;
  const calls = Array.from({ length: size - 1 }, (_, i) => {
    const into = new Int32Array(1);
    mpi.isendInt(i + 1, PING_TAG, round);
    return { rank: i + 1, into, id: mpi.irecvInt(i + 1, PONG_TAG, into), answered: false };
  });
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (const c of calls) {
      if (c.answered || !mpi.test(c.id)) continue;
      c.answered = c.into[0] === round;
      if (!c.answered) c.id = mpi.irecvInt(c.rank, PONG_TAG, c.into); // an earlier round's answer
    }
    if (calls.every((c) => c.answered)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return calls.filter((c) => !c.answered).map((c) => c.rank);
}
