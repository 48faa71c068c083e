// eval: when to evaluate, its batch, top-k and the EMA weights.

import { ConfigError } from '../../shared/errors.ts';
import { bool, int, orNull, Section } from '../checker.ts';
import { EVAL_DEFAULTS, EVAL_EVERY_WITH_EVAL_SET } from '../defaults.ts';
import type { Config } from '../types.ts';
import { interval } from './interval.ts';

export function evalSection(raw: unknown, hasEval: boolean, training: Config['training']): Config['eval'] {
  const e = Section.open(raw, 'eval', ['every', 'batchSize', 'topK', 'useEma']);
  const evaluation = {
    // With an eval set, the default is an evaluation at the end of each epoch (Keras's validation_data).
    every: interval(e, 'every', hasEval ? EVAL_EVERY_WITH_EVAL_SET : EVAL_DEFAULTS.every),
    batchSize: e.opt('batchSize', orNull(int(1)), EVAL_DEFAULTS.batchSize),
    topK: e.opt('topK', int(1), EVAL_DEFAULTS.topK),
    useEma: e.opt('useEma', bool, EVAL_DEFAULTS.useEma),
  };
  // every: 0 (evaluate at the end) is the default and a no-op without eval data; a resolved
  // config written back out carries it.
  if (!hasEval && evaluation.every !== 0) {
    throw new ConfigError(e.at('every'), 'is set, but there is no data.eval (or data.evalFraction) to evaluate on', 'set data.eval, or remove eval.every');
  }
  if (evaluation.useEma && training.ema === null) {
    throw new ConfigError('eval.useEma', 'is true, but training.ema is not set, so there are no EMA weights', 'set training.ema (e.g. 0.9999)');
  }
  return evaluation;
}
