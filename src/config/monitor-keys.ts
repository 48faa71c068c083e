// What a monitor (checkpoint.best, training.earlyStopping, schedule 'plateau') can name on the
// eval line, and the way each figure improves. The validator checks a config's monitors with
// these; the eval watcher checks them again once the model's outputs are known.

import { ConfigError } from '../shared/errors.ts';
import { closest, show } from './checker.ts';
import { METRIC_DIRECTION, MONITORS } from './defaults.ts';
import { metricKey, metricSuits, type OutputKind } from './metric-keys.ts';
import type { MetricSpec, MonitorMode } from './types.ts';

const DIRECTION: Record<MonitorMode, string> = { min: 'downward (mode: min)', max: 'upward (mode: max)' };

/**
 * What a monitor can name, with the way each improves (null: a custom metric's value, whose way
 * is not known): the eval line's own figures, then the values of the config's metrics. With
 * `outputs` (a model with several): eval.loss, then per output eval.loss.<output>,
 * eval.accuracy.<output> (a loss with classes), eval.top_k.<output> (a categorical loss with more
 * classes than `topK`, when the classes are known), eval.mae.<output>, and each metric as
 * eval.<key>.<output> for the outputs it suits (a custom one: eval.<name>.<key>.<output>).
 */
export function monitorable(metricList: MetricSpec[] | null, outputs: OutputKind[] | null = null, topK = 0): Array<{ name: string; mode: MonitorMode | null }> {
  if (outputs === null || outputs.length < 2) {
    const out: Array<{ name: string; mode: MonitorMode | null }> = Object.entries(MONITORS).map(([name, mode]) => ({ name, mode }));
    for (const m of metricList ?? []) {
      const name = 'module' in m ? `eval.${m.name}.<key>` : `eval.${metricKey(m)}`;
      if (!out.some((o) => o.name === name)) out.push({ name, mode: 'module' in m ? null : METRIC_DIRECTION[m.name] });
    }
    return out;
  }
  const out: Array<{ name: string; mode: MonitorMode | null }> = [{ name: 'eval.loss', mode: 'min' }];
  for (const o of outputs) {
    out.push({ name: `eval.loss.${o.name}`, mode: 'min' });
    if (metricSuits('accuracy', o.loss)) out.push({ name: `eval.accuracy.${o.name}`, mode: 'max' });
    if (metricSuits('topK', o.loss) && (o.classes === null || o.classes > topK)) out.push({ name: `eval.top_k.${o.name}`, mode: 'max' });
    out.push({ name: `eval.mae.${o.name}`, mode: 'min' });
  }
  for (const m of metricList ?? []) {
    for (const o of outputs) {
      if ('module' in m) out.push({ name: `eval.${m.name}.<key>.${o.name}`, mode: null });
      else if (metricSuits(m.name, o.loss) && (m.name !== 'topK' || o.classes === null || o.classes > topK)) {
        const name = `eval.${metricKey(m)}.${o.name}`;
        if (!out.some((k) => k.name === name)) out.push({ name, mode: METRIC_DIRECTION[m.name] });
      }
    }
  }
  return out;
}

/**
 * Where the outputs are not known yet (one loss name for every output: the model may have one or
 * several), a monitor may also name one output's figure, `eval.<figure>.<output>`: accepted here
 * with the figure's direction, and checked against the model's outputs once it is built
 * (checkMonitorsFitModel in eval-watch.ts).
 */
function perOutputForm(monitor: string, known: Array<{ name: string; mode: MonitorMode | null }>): { name: string; mode: MonitorMode } | null {
  for (const k of known) {
    if (k.mode !== null && monitor.startsWith(`${k.name}.`) && monitor.length > k.name.length + 1) return { name: monitor, mode: k.mode };
  }
  return null;
}

/**
 * Checks a watcher's monitor against what the eval line will hold (the config's metrics among
 * it) and settles its mode: the monitor's direction by default; the other one (max with a loss,
 * min with an accuracy) is refused as a mistake; a custom metric's value needs one given.
 * `outputs`: a model with several outputs, or null for one output, or 'unknown' (one loss name
 * for every output: a per-output figure is accepted and checked once the model is built).
 */
export function resolveMonitor(
  keyPath: string,
  w: { monitor: string; mode: MonitorMode },
  given: MonitorMode | null,
  metricList: MetricSpec[] | null,
  outputs: OutputKind[] | null | 'unknown' = null,
  topK = 0,
): void {
  const found = findMonitor(keyPath, w.monitor, metricList, outputs, topK);
  const modeKey = `${keyPath}.mode`;
  if (found.mode === null) {
    if (given === null) {
      throw new ConfigError(
        modeKey,
        `missing: ${w.monitor} is a custom metric's value, whose direction mgpu-train cannot know`,
        `set ${modeKey}: max (higher is better) or min (lower is better)`,
      );
    }
    w.mode = given;
    return;
  }
  if (given !== null && given !== found.mode) {
    throw new ConfigError(
      modeKey,
      `is '${given}', but ${w.monitor} improves ${DIRECTION[found.mode]}`,
      `set ${modeKey}: ${found.mode}, or leave it out (it defaults to the monitor's direction)`,
    );
  }
  w.mode = found.mode;
}

/** What the eval line calls `monitor` (and the way it improves), or the error naming what it can be. */
function findMonitor(
  keyPath: string,
  monitor: string,
  metricList: MetricSpec[] | null,
  outputs: OutputKind[] | null | 'unknown',
  topK: number,
): { name: string; mode: MonitorMode | null } {
  const several = Array.isArray(outputs) && outputs.length > 1 ? outputs : null;
  const known = monitorable(metricList, several, topK);
  // A custom metric's value: eval.<name>.<key> (with several outputs, eval.<name>.<key>.<output>).
  const custom = (metricList ?? []).find((m) => {
    if (!('module' in m) || !monitor.startsWith(`eval.${m.name}.`)) return false;
    const rest = monitor.slice(`eval.${m.name}.`.length);
    return several ? several.some((o) => rest.endsWith(`.${o.name}`) && rest.length > o.name.length + 1) : rest.length > 0;
  });
  const found =
    (custom ? { name: monitor, mode: null } : known.find((k) => k.name === monitor)) ?? (outputs === 'unknown' ? perOutputForm(monitor, known) : null);
  if (found) return found;
  const names = known.map((k) => k.name);
  const near = closest(monitor, names) ?? (metricList ? names.find((n) => n.startsWith(`eval.${monitor.replace(/^eval\./, '')}_`)) : undefined);
  throw new ConfigError(
    `${keyPath}.monitor`,
    `expected one of ${names.map((n) => `'${n}'`).join(', ')}, got ${show(monitor)}`,
    several
      ? `${near ? `did you mean ${near}? ` : ''}with several outputs a monitor names the total eval.loss or one output's figure, eval.<figure>.<output> (add a metric to metrics: to watch it)`
      : `${near ? `did you mean ${near}? ` : ''}a monitor names a figure of metrics.jsonl's eval line: eval.loss, eval.accuracy, eval.top_k, eval.mae, or a value of the config's metrics (add the metric to metrics: to watch it)`,
  );
}
