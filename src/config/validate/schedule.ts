// schedule: the learning-rate schedule and the parameters its name reads.

import { bool, int, nonNegative, oneOf, positive, real, Section } from '../checker.ts';
import { SCHEDULE_PARAMS, scheduleDefaults } from '../defaults.ts';
import { SCHEDULE_NAMES, type ScheduleConfig } from '../types.ts';
import { monitorAndMode, type GivenModes } from './watchers.ts';

export function schedule(raw: unknown, given: GivenModes): ScheduleConfig {
  const s = Section.open(raw, 'schedule', Object.keys(scheduleDefaults('constant')));
  const d = scheduleDefaults(s.opt('name', oneOf(SCHEDULE_NAMES), 'constant'));
  s.rejectUnread(d.name, SCHEDULE_PARAMS);
  return {
    name: d.name,
    decaySteps: SCHEDULE_PARAMS[d.name].includes('decaySteps') ? s.req('decaySteps', int(1)) : d.decaySteps,
    decayRate: s.opt('decayRate', positive, d.decayRate),
    staircase: s.opt('staircase', bool, d.staircase),
    alpha: s.opt(
      'alpha',
      real('a number in [0, 1]', (x) => x >= 0 && x <= 1),
      d.alpha,
    ),
    warmupSteps: s.opt('warmupSteps', int(0), d.warmupSteps),
    factor: s.opt(
      'factor',
      real('a number in (0, 1)', (x) => x > 0 && x < 1),
      d.factor,
    ),
    patience: s.opt('patience', int(0), d.patience),
    minLr: s.opt('minLr', nonNegative, d.minLr),
    cooldown: s.opt('cooldown', int(0), d.cooldown),
    ...(d.name === 'plateau' ? monitorAndMode(s, d.monitor, given) : { monitor: d.monitor, mode: d.mode }),
    minDelta: s.opt('minDelta', nonNegative, d.minDelta),
  };
}
