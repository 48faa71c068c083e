// What the multi-machine parity tests train (MPI ranks on this machine: mpi-parity; two machines
// over TCP: net-parity) and their check against plain single-process tfjs in this process.
//
//   parityRuns(dir)    42 one-hot samples and four configs on them:
//                      sgd     mlp, batch 10, 8 steps
//                      adam    L2 mlp, batch 8, one epoch: 5 batches of 8 and a short last one of 2,
//                              which on 2 x 2 workers splits 1,1,0,0 (machine 1 has no rows)
//                      uneven  adam, batch 7 for 6 steps: shards of unequal sizes
//                      bn      BatchNorm, batch 12, 6 steps (check it against `towers` towers)
//   matchesTfjs()      the weights a run saved against referenceTrain (towerReferenceTrain)
import type { TestContext } from 'node:test';
import { assertWeightsClose, buildConfig, referenceTrain, savedOrder, towerReferenceTrain, writeDataset, writeModelModule } from './train-fixture.ts';

export function parityRuns(dir: string) {
  const data = writeDataset(dir, 'train', 42, 'onehot', 11);
  const sgd = {
    name: 'sgd',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 8, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const adam = {
    ...sgd,
    name: 'adam',
    model: { module: writeModelModule(dir, 'l2') },
    training: { batchSize: 8, epochs: 1, seed: 5 },
    optimizer: { name: 'adam', learningRate: 0.02 },
  };
  const uneven = { ...adam, name: 'uneven', training: { batchSize: 7, steps: 6, seed: 5 } };
  const bn = {
    ...sgd,
    name: 'bn',
    model: { module: writeModelModule(dir, 'batchnorm') },
    training: { batchSize: 12, steps: 6, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.2 },
  };
  return { sgd, adam, uneven, bn };
}

/** `got` (a run's saved weights) against plain tfjs trained on `raw` in this process; `towers` > 0: the tower reference. */
export async function matchesTfjs(t: TestContext, dir: string, got: Float32Array, raw: Record<string, unknown>, what: string, towers = 0): Promise<void> {
  const cfg = buildConfig(dir, raw, 1);
  const ref = towers ? await towerReferenceTrain(cfg, towers) : await referenceTrain(cfg);
  assertWeightsClose(t, got, savedOrder(ref.model), what);
  ref.model.dispose();
}
