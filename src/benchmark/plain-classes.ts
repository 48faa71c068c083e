// The classes of the plain baseline's network head, found as the workers' are: a network by name
// whose config names no `classes` takes the run's class count from its data (an image folder's
// class folders, a list's labels), so the baseline reads the config's splits once for their
// class names before it starts. Synthetic rows name their count; a model module or model.json
// needs none.
import type { Config } from '../shared/config/types.ts';
import { loadSplits } from '../data/splits.ts';

/** The class count to build the baseline's network with, or null when the config's model does not need one. */
export async function plainClassCount(cfg: Config): Promise<number | null> {
  const train = cfg.data.train;
  if (train.type === 'synthetic') return train.classes;
  if (!cfg.model.net || cfg.model.net.classes !== null) return null;
  const splits = await loadSplits(cfg);
  try {
    return splits.classes?.classes.length ?? null;
  } finally {
    for (const ds of [splits.train, splits.eval]) await ds?.pipeline?.close();
  }
}
