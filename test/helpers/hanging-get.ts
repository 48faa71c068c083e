// A map-style data module whose get(5) never settles in the second epoch, for the tests of a wait
// for data that never ends: 8 samples, a batch of 8 (one step per epoch), so step 1 (epoch 1) has
// trained and can be kept in a checkpoint when step 2 waits forever. get(5) of epoch 2 writes
// `marker` when it starts to wait; it hangs only while `hangFlag` exists, so a resume after the
// flag is removed trains to the end. writeHangingModule: the module alone, hanging when told.
import fs from 'node:fs';
import path from 'node:path';
import { writeConfigFile } from './chaos.ts';
import { FEATURES, writeModelModule } from './train-fixture.ts';

export const HANGING_SAMPLE = 5;

export interface HangingRun {
  config: string; // the experiment file
  runDir: string;
  module: string;
  marker: string; // written when get(5) of epoch 2 starts its wait
  hangFlag: string; // get(5) of epoch 2 hangs while it exists
}

/**
 * Writes a map-style module of 8 samples whose get(5) writes `marker` and never settles when
 * `when` (a JavaScript condition on `epoch` and `split`) holds and `hangFlag` exists.
 */
export function writeHangingModule(dir: string, name: string, when: string): { module: string; marker: string; hangFlag: string } {
  const module = path.join(dir, `${name}-hanging.mjs`);
  const marker = path.join(dir, `${name}-waiting`);
  const hangFlag = path.join(dir, `${name}-hang`);
  fs.writeFileSync(hangFlag, '');
  fs.writeFileSync(
    module,
    `import fs from 'node:fs';
export default {
  length: 8,
  get(i, { epoch, split }) {
    if (i === ${HANGING_SAMPLE} && (${when}) && fs.existsSync(${JSON.stringify(hangFlag)})) {
      fs.writeFileSync(${JSON.stringify(marker)}, String(process.pid));
      return new Promise(() => {}); // never settles
    }
    return Promise.resolve({ x: Array.from({ length: ${FEATURES} }, (_, k) => Math.sin(i * 7 + k)), y: i % 3 });
  },
};
`,
  );
  return { module, marker, hangFlag };
}

/** Writes the module (hanging in epoch 2 of data.train) and an experiment training it; `extra`: more keys of `data` and `reliability`. */
export function writeHangingRun(dir: string, name: string, extra: { data?: Record<string, unknown>; reliability?: Record<string, unknown> } = {}): HangingRun {
  const { module, marker, hangFlag } = writeHangingModule(dir, name, "epoch === 1 && split === 'data.train'");
  const runDir = path.join(dir, 'runs', name);
  const config = writeConfigFile(dir, name, {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'module', module }, prefetch: 1, ...extra.data },
    training: { batchSize: 8, epochs: 3, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    log: { every: 1 },
    reliability: { ...extra.reliability },
    runDir,
  });
  return { config, runDir, module, marker, hangFlag };
}
