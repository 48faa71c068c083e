// What watches an eval figure (checkpoint.best, training.earlyStopping, schedule 'plateau'): its
// monitor and mode as each section gives them, and the checks once the metrics are read.

import { ConfigError } from '../../shared/errors.ts';
import { oneOf, text, type Section } from '../checker.ts';
import { hasClasses, hasTopK, labelsOf, lossLabel, oneLoss } from '../loss.ts';
import { resolveMonitor } from '../monitor-keys.ts';
import type { Config, LossEntry, MonitorMode } from '../types.ts';
import type { LossSection } from './loss.ts';

/** The mode each watcher's section gave (null: none), by key path; its default needs the metrics. */
export type GivenModes = Map<string, MonitorMode | null>;

/**
 * monitor and mode of a section that watches an eval figure, as given: which figures exist
 * depends on `metrics`, read later; resolveMonitor checks the monitor and settles the mode.
 */
export function monitorAndMode(s: Section, fallback: string, given: GivenModes): { monitor: string; mode: MonitorMode } {
  const monitor = s.opt('monitor', text, fallback);
  const mode = s.has('mode') ? s.req('mode', oneOf(['min', 'max'] as const)) : null;
  given.set(s.path, mode);
  return { monitor, mode: mode ?? 'min' };
}

/**
 * What watches an eval figure needs evaluations that have it; early stopping and the plateau
 * schedule need them during the run, not only at its end.
 */
export function checkWatchers(
  cfg: Pick<Config, 'training' | 'schedule' | 'checkpoint' | 'eval' | 'metrics'>,
  losses: LossSection,
  hasEval: boolean,
  givenModes: GivenModes,
): void {
  const { loss, outputs } = losses;
  const watchers: Array<[string, { monitor: string; mode: MonitorMode }, boolean]> = [];
  if (cfg.checkpoint.best) watchers.push(['checkpoint.best', cfg.checkpoint.best, false]);
  if (cfg.training.earlyStopping) watchers.push(['training.earlyStopping', cfg.training.earlyStopping, true]);
  if (cfg.schedule.name === 'plateau') watchers.push(['schedule', cfg.schedule, true]);
  for (const [keyPath, watched, during] of watchers) {
    const monitor = watched.monitor;
    // With one loss per output, what each output measures is in the list resolveMonitor checks.
    checkMonitor(keyPath, monitor, hasEval, outputs ? null : loss);
    resolveMonitor(
      keyPath,
      watched,
      givenModes.get(keyPath) ?? null,
      cfg.metrics,
      outputs ?? (oneLoss(losses.spec) !== null ? 'unknown' : null),
      cfg.eval.topK,
    );
    if (during && cfg.eval.every === 0) {
      throw new ConfigError(
        keyPath,
        `${keyPath === 'schedule' ? "schedule 'plateau'" : 'early stopping'} acts on evaluations during the run, but eval.every is 0 (evaluate at the end only)`,
        'set eval.every to epoch (the default with an eval set), { epochs: k } or a step count',
      );
    }
  }
}

/**
 * A monitor needs evaluations, and an eval line that has its figure: accuracy and top-k are
 * measured only with classes, top-k not with one sigmoid output (binaryCrossentropy).
 */
function checkMonitor(keyPath: string, monitor: string, hasEval: boolean, loss: LossEntry | null): void {
  if (!hasEval) {
    throw new ConfigError(
      `${keyPath}.monitor`,
      `watches ${monitor}, but there is no data.eval (or data.evalFraction) to evaluate on`,
      'set data.eval, or data.evalFraction to hold out part of the training set',
    );
  }
  // eval.accuracy.<output> and eval.top_k.<output> (one loss for every output) need the same.
  if (/^eval\.(accuracy|top_k)(\.|$)/.test(monitor) && loss !== null && !hasClasses(loss)) {
    throw new ConfigError(
      `${keyPath}.monitor`,
      `${monitor} is not measured with loss ${lossLabel(loss)}, which has no classes (its eval line has loss and mae)`,
      'monitor eval.loss or eval.mae',
    );
  }
  if (/^eval\.top_k(\.|$)/.test(monitor) && loss !== null && !hasTopK(loss)) {
    throw new ConfigError(
      `${keyPath}.monitor`,
      `${monitor} is not measured with loss ${lossLabel(loss)}${labelsOf(loss) === 'binary' ? ' (one sigmoid output)' : ''}`,
      'monitor eval.accuracy or eval.loss',
    );
  }
}
