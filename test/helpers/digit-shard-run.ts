// A short training run of the dense digit model (digit-images.ts) on a shard source, as the
// shard tests over HTTP and from local files compare them: sparse cross-entropy, sgd at 0.5, the
// run's lines collected where asked; and the CLI refusing such a source before training.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { train } from '../../src/coordinator/train.ts';
import { runCliAsync } from './run-cli.ts';
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

/**
 * `mgpu-train train` of the digit model on `source` as data.train (4 samples a step, 2 steps, 1
 * simulated worker on cpu, run dir `<dir>/run`), which must exit 2 before training: no
 * metrics.jsonl, no checkpoint. Returns its stderr and the first `error ` line of it.
 */
export async function refusedBeforeTraining(dir: string, source: Record<string, unknown>, env?: NodeJS.ProcessEnv): Promise<{ stderr: string; error: string }> {
  const cfg = path.join(dir, 'exp.json');
  const config = {
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: source, threads: 1 },
    training: { batchSize: 4, steps: 2 },
    optimizer: { name: 'sgd' },
  };
  fs.writeFileSync(cfg, JSON.stringify(config));
  const run = path.join(dir, 'run');
  const r = await runCliAsync(['train', cfg, '--simulate', '1', '--backend', 'cpu', '--run-dir', run], env ? { env } : {});
  assert.equal(r.code, 2, r.stderr);
  assert.ok(!fs.existsSync(path.join(run, 'metrics.jsonl')), 'training started');
  assert.ok(!fs.existsSync(path.join(run, 'checkpoints')), 'a checkpoint was written');
  return { stderr: r.stderr, error: r.stderr.split('\n').find((l) => l.startsWith('error ')) ?? '' };
}
