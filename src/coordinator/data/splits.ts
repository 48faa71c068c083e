// The training and evaluation sets of a run: data.eval when given, else a seeded held-out
// fraction of data.train (data.evalFraction), else no evaluation.
import type { Config } from '../../shared/config/types.ts';
import { loadDataset, type Dataset } from './dataset.ts';
import { splitHoldout } from './holdout.ts';

export async function loadSplits(cfg: Config): Promise<{ train: Dataset; eval: Dataset | null }> {
  const train = await loadDataset(cfg.data.train, 'data.train');
  if (cfg.data.eval) return { train, eval: await loadDataset(cfg.data.eval, 'data.eval') };
  if (cfg.data.evalFraction !== null) return splitHoldout(train, cfg.data.evalFraction, cfg.training.seed);
  return { train, eval: null };
}
