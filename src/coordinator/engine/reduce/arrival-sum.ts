// Starts the reduce while the step is still running: as soon as a rank's gradient has arrived
// and every rank before it has too, it is added to the running sum. The last rank is left for
// the final pass, which fuses its addition with the squared norm and the update. The order of
// the additions is the rank order either way, so the result is the same to the bit.
import type { ReducePool } from './reduce-pool.ts';

export class ArrivalSum {
  private next = 0;
  private readonly arrived = new Set<number>();
  private chain: Promise<void> = Promise.resolve();

  /** `order`: the step's ranks, ascending. */
  constructor(
    private readonly pool: ReducePool,
    private readonly order: number[],
  ) {}

  /** Give to WorkerGroup.all as its onReply. */
  readonly onReply = (_reply: unknown, rank: number): void => {
    this.arrived.add(rank);
    while (this.next < this.order.length - 1 && this.arrived.has(this.order[this.next]!)) {
      const rank = this.order[this.next];
      const first = this.next === 0;
      this.next++;
      this.chain = this.chain.then(() => this.pool.accumulate(rank!, first));
    }
  };

  /** Waits for the sums started early; says which ranks are left and whether a sum exists. */
  async settle(): Promise<{ remaining: number[]; continuing: boolean }> {
    await this.chain;
    return { remaining: this.order.slice(this.next), continuing: this.next > 0 };
  }
}
