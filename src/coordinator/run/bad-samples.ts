// Training samples left out of their batch (data.onBadSample: skip): each one a `bad-sample`
// line in metrics.jsonl (its step, epoch, index and what its decoder said), a line on the
// console for the first few, and the count at the end of the loop. Which samples are left out
// depends on the files alone, never on the number of workers or machines: a step trains on the
// rest of its batch, and its loss is the mean over them.
import type { BadSample } from '../machine-rows.ts';
import type { Progress } from '../console/progress.ts';
import type { MetricsLog } from './metrics-log.ts';

const SHOWN = 5; // console lines; metrics.jsonl lists every one

export interface BadSamples {
  record: (step: number, epoch: number, bad: BadSample[]) => void;
  /** The end of the loop: how many were left out, and where they are listed. */
  sayTotal(): void;
}

export function badSamples(metrics: MetricsLog, out: Progress, metricsFile: string): BadSamples {
  let count = 0;
  return {
    record(step, epoch, bad) {
      for (const b of bad) {
        metrics.write({ type: 'bad-sample', step, epoch, sample: b.sample, message: b.message });
        if (count++ < SHOWN) out.line(`step ${step}: sample ${b.sample} left out (data.onBadSample: skip): ${b.message}`);
        else if (count === SHOWN + 1) out.line(`more samples left out: every one is a bad-sample line in ${metricsFile}`);
      }
    },
    sayTotal() {
      if (count > 0)
        out.line(
          `warning: ${count} sample${count === 1 ? ' was' : 's were'} left out of their batches (data.onBadSample: skip); ${metricsFile} lists each`,
          true,
        );
    },
  };
}
