// reliability: what a worker's failure, a stall or a non-finite gradient does.

import { int, nonNegative, oneOf, orNull, positive, real, Section } from '../checker.ts';
import { RELIABILITY_DEFAULTS } from '../defaults.ts';
import { FAILURE_POLICIES, NONFINITE_POLICIES, type Config } from '../types.ts';

export function reliabilitySection(raw: unknown): Config['reliability'] {
  const r = Section.open(raw, 'reliability', Object.keys(RELIABILITY_DEFAULTS));
  const RD = RELIABILITY_DEFAULTS;
  return {
    onWorkerFailure: r.opt('onWorkerFailure', oneOf(FAILURE_POLICIES), RD.onWorkerFailure),
    maxRestarts: r.opt('maxRestarts', int(0), RD.maxRestarts),
    stepTimeout: r.opt('stepTimeout', positive, RD.stepTimeout),
    // null (the default) is stepTimeout, resolved where it is used, so that a --resume that
    // raises stepTimeout raises the start-up's deadline too, as before this key existed.
    startTimeout: r.opt('startTimeout', orNull(positive), RD.startTimeout),
    stallFactor: r.opt('stallFactor', nonNegative, RD.stallFactor),
    stallMinSeconds: r.opt('stallMinSeconds', positive, RD.stallMinSeconds),
    onNonFinite: r.opt('onNonFinite', oneOf(NONFINITE_POLICIES), RD.onNonFinite),
    maxSkippedFraction: r.opt(
      'maxSkippedFraction',
      real('a number in [0, 1]', (x) => x >= 0 && x <= 1),
      RD.maxSkippedFraction,
    ),
  };
}
