// How long the coordinator waits for a step's replies before it calls a worker stalled:
// reliability.stepTimeout always; once a few steps are timed, also stallFactor x the median
// step (never below stallMinSeconds), so a worker stuck in a 50 ms step is caught in seconds,
// not minutes. The first steps (tfjs warm-up, kernel compilation) only get the fixed timeout.
import type { ReliabilityConfig } from '../../config/types.ts';

const WARMUP = 5;
const WINDOW = 50;

export class StepDeadline {
  private readonly recent: number[] = [];
  constructor(private readonly r: ReliabilityConfig) {}

  record(ms: number): void {
    this.recent.push(ms);
    if (this.recent.length > WINDOW) this.recent.shift();
  }

  ms(): number {
    const cap = this.r.stepTimeout * 1000;
    if (this.r.stallFactor === 0 || this.recent.length < WARMUP) return cap;
    const sorted = [...this.recent].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    return Math.min(cap, Math.max(this.r.stallMinSeconds * 1000, this.r.stallFactor * median));
  }
}
