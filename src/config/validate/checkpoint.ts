// checkpoint: how often, how many to keep, and the best one by a monitor.

import { int, Section } from '../checker.ts';
import { CHECKPOINT_DEFAULTS } from '../defaults.ts';
import type { BestCheckpointConfig, Config } from '../types.ts';
import { interval } from './interval.ts';
import { monitorAndMode, type GivenModes } from './watchers.ts';

export function checkpointSection(raw: unknown, givenModes: GivenModes): Config['checkpoint'] {
  const c = Section.open(raw, 'checkpoint', ['every', 'keep', 'best']);
  return {
    every: interval(c, 'every', CHECKPOINT_DEFAULTS.every),
    keep: c.opt('keep', int(1), CHECKPOINT_DEFAULTS.keep),
    best: bestCheckpoint(c.obj.best, c.at('best'), givenModes),
  };
}

function bestCheckpoint(raw: unknown, path: string, given: GivenModes): BestCheckpointConfig | null {
  if (raw === null || raw === undefined) return null;
  const s = Section.open(raw, path, ['monitor', 'mode']);
  return monitorAndMode(s, 'eval.loss', given);
}
