// A short training run of the dense digit model (digit-images.ts) on a shard source, as the
// shard tests over HTTP and from local files compare them: sparse cross-entropy, sgd at 0.5, the
// run's lines collected where asked.
import { train } from '../../src/coordinator/train.ts';
import { writeDigitModel } from './digit-images.ts';
import { buildConfig, silent } from './train-fixture.ts';

export interface DigitRun {
  threads: number; // data.threads
  steps: number;
  seed: number;
  workers: number;
  lines?: string[]; // the run's printed lines go here
  data?: Record<string, unknown>; // more data.* keys (data.evalFraction)
}

/** Trains run `name` in `dir` on `source` (a data.train entry, before validation), 6 samples a step. */
export function trainDigitsOn(dir: string, name: string, source: Record<string, unknown>, o: DigitRun) {
  const lines = o.lines;
  return train(
    buildConfig(
      dir,
      {
        name,
        model: { module: writeDigitModel(dir) },
        loss: 'sparseCategoricalCrossentropy',
        data: { train: source, threads: o.threads, ...o.data },
        training: { batchSize: 6, steps: o.steps, seed: o.seed },
        optimizer: { name: 'sgd', learningRate: 0.5 },
      },
      o.workers,
    ),
    lines ? { ...silent, line: (text: string) => void lines.push(text) } : silent,
  );
}
