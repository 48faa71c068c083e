// What the benchmark needs of its data before anything is measured, read once: the samples of
// data.train (each worker count's global batch must fit in them) and the class count of the
// plain baseline's network head, found as the workers find it (a network by name whose config
// names no `classes` takes the run's class count from its data: an image folder's class
// folders, a list's labels). Synthetic rows name both; other sources are read once here.
import type { Config } from '../config/types.ts';
import { loadSplits } from '../data/splits.ts';

export interface TrainFacts {
  /** Samples of data.train (its evaluation split left out: the benchmark evaluates nothing). */
  rows: number;
  /** The class count to build the baseline's network with, or null when the config's model does not need one. */
  classes: number | null;
}

/** `cfg`: a worker count's config (no evaluation split); `abort`: a Ctrl-C while the data is read. */
export async function trainFacts(cfg: Config, abort: AbortSignal | null = null): Promise<TrainFacts> {
  const train = cfg.data.train;
  if (train.type === 'synthetic') return { rows: train.count, classes: train.classes };
  const splits = await loadSplits(cfg, null, abort);
  try {
    const needsClasses = cfg.model.net !== null && cfg.model.net.classes === null;
    return { rows: splits.train.count, classes: needsClasses ? (splits.classes?.classes.length ?? null) : null };
  } finally {
    for (const ds of [splits.train, splits.eval]) await ds?.pipeline?.close();
  }
}
