// Builds the coordinator's update rule from the validated optimizer config. Every rule matches
// tfjs 4.22's optimizer of the same name (adamw: Adam plus decoupled weight decay, see adamw.ts).

import type { OptimizerConfig } from '../../../config/types.ts';
import { ConfigError } from '../../../shared/errors.ts';
import type { UpdateRule } from './update-rule.ts';
import { sgdRule } from './sgd.ts';
import { momentumRule } from './momentum.ts';
import { adamRule } from './adam.ts';
import { adamwRule } from './adamw.ts';
import { rmspropRule } from './rmsprop.ts';
import { adagradRule } from './adagrad.ts';

export type { UpdateRule } from './update-rule.ts';
export { sgdRule } from './sgd.ts';
export { momentumRule } from './momentum.ts';
export { adamRule, adamStep } from './adam.ts';
export { adamwRule } from './adamw.ts';
export { rmspropRule } from './rmsprop.ts';
export { adagradRule } from './adagrad.ts';

export function makeUpdateRule(cfg: OptimizerConfig): UpdateRule {
  switch (cfg.name) {
    case 'sgd':
      return sgdRule();
    case 'momentum':
      return momentumRule(cfg.momentum, cfg.nesterov);
    case 'adam':
      return adamRule(cfg.beta1, cfg.beta2, cfg.epsilon);
    case 'adamw':
      return adamwRule(cfg.beta1, cfg.beta2, cfg.epsilon, cfg.weightDecay);
    case 'rmsprop':
      return rmspropRule(cfg.decay, cfg.momentum, cfg.epsilon, cfg.centered);
    case 'adagrad':
      return adagradRule(cfg.initialAccumulatorValue, cfg.epsilon);
    default: {
      const name: never = cfg.name;
      throw new ConfigError('optimizer.name', `unknown optimizer '${String(name)}'`, 'use one of sgd, momentum, adam, adamw, rmsprop, adagrad');
    }
  }
}
