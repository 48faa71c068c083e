// training: the batch, how long to train, and the step's options (clipping, EMA, early stopping,
// class weights).

import { ConfigError } from '../../shared/errors.ts';
import { bool, int, nonNegative, orNull, positive, real, Section } from '../checker.ts';
import { DEFAULT_EPOCHS, EARLY_STOPPING_DEFAULTS, TRAINING_DEFAULTS } from '../defaults.ts';
import type { Config, EarlyStoppingConfig, LossEntry } from '../types.ts';
import { namesClasses, sourceTraits } from '../data-sources-table.ts';
import { classWeights } from './class-weights.ts';
import { monitorAndMode, type GivenModes } from './watchers.ts';

export function trainingSection(raw: unknown, loss: LossEntry, data: Config['data'], givenModes: GivenModes): Config['training'] {
  const t = Section.open(raw, 'training', [
    'batchSize',
    'epochs',
    'steps',
    'dropLast',
    'seed',
    'accumulateSteps',
    'syncBatchNorm',
    'clipNorm',
    'ema',
    'earlyStopping',
    'classWeights',
  ]);
  const batchSize = t.req('batchSize', int(1));
  const epochs = t.opt('epochs', orNull(int(1)), null);
  const steps = t.opt('steps', orNull(int(1)), null);
  if (epochs !== null && steps !== null) {
    throw new ConfigError('training', 'epochs and steps are both set', 'set one: epochs (passes over the data) or steps (optimizer steps)');
  }
  return {
    batchSize,
    epochs: epochs === null && steps === null ? DEFAULT_EPOCHS : epochs,
    steps,
    dropLast: t.opt('dropLast', bool, TRAINING_DEFAULTS.dropLast),
    seed: t.opt('seed', int(0), TRAINING_DEFAULTS.seed),
    accumulateSteps: t.opt('accumulateSteps', int(1), TRAINING_DEFAULTS.accumulateSteps),
    syncBatchNorm: t.opt('syncBatchNorm', bool, TRAINING_DEFAULTS.syncBatchNorm),
    clipNorm: t.opt('clipNorm', orNull(positive), TRAINING_DEFAULTS.clipNorm),
    ema: t.opt('ema', orNull(real('a number in (0, 1)', (x) => x > 0 && x < 1)), TRAINING_DEFAULTS.ema),
    earlyStopping: earlyStopping(t.obj.earlyStopping, t.at('earlyStopping'), givenModes),
    classWeights: classWeights(t.obj.classWeights, t.at('classWeights'), loss, classNamesGiver(data)),
  };
}

function earlyStopping(raw: unknown, path: string, given: GivenModes): EarlyStoppingConfig | null {
  if (raw === null || raw === undefined) return null;
  const s = Section.open(raw, path, ['monitor', 'mode', 'patience', 'minDelta', 'restoreBest']);
  const d = EARLY_STOPPING_DEFAULTS;
  return {
    ...monitorAndMode(s, d.monitor, given),
    patience: s.opt('patience', int(0), d.patience),
    minDelta: s.opt('minDelta', nonNegative, d.minDelta),
    restoreBest: s.opt('restoreBest', bool, d.restoreBest),
  };
}

/**
 * Which split gives the run's class names, and how (for messages), or null: class weights are
 * keyed by name whenever the run has a class mapping (data.train's names, or data.eval's with
 * data.classes), as the run resolves them (resolveClassWeights).
 */
function classNamesGiver(data: Config['data']): string | null {
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const)
    if (src && namesClasses(src)) return `${key} reads class names (${sourceTraits(src).classNamesFrom})`;
  return null;
}
