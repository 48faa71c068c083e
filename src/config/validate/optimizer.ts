// optimizer: its name and the parameters that name reads.

import { bool, fraction, nonNegative, oneOf, positive, Section } from '../checker.ts';
import { OPTIMIZER_PARAMS, optimizerDefaults } from '../defaults.ts';
import { OPTIMIZER_NAMES, type OptimizerConfig } from '../types.ts';

export function optimizer(raw: unknown): OptimizerConfig {
  const s = Section.open(raw, 'optimizer', Object.keys(optimizerDefaults('sgd')));
  const d = optimizerDefaults(s.req('name', oneOf(OPTIMIZER_NAMES)));
  s.rejectUnread(d.name, OPTIMIZER_PARAMS);
  return {
    name: d.name,
    learningRate: s.opt('learningRate', positive, d.learningRate),
    momentum: s.opt('momentum', fraction, d.momentum),
    nesterov: s.opt('nesterov', bool, d.nesterov),
    beta1: s.opt('beta1', fraction, d.beta1),
    beta2: s.opt('beta2', fraction, d.beta2),
    epsilon: s.opt('epsilon', positive, d.epsilon),
    weightDecay: s.opt('weightDecay', nonNegative, d.weightDecay),
    decay: s.opt('decay', fraction, d.decay),
    centered: s.opt('centered', bool, d.centered),
    initialAccumulatorValue: s.opt('initialAccumulatorValue', nonNegative, d.initialAccumulatorValue),
  };
}
