// metrics: the eval metrics, built-in or custom modules, checked against the loss or the outputs.

import { basename, extname } from 'node:path';
import { ConfigError } from '../../shared/errors.ts';
import { closest, fail, isMapping, oneOf, Section, show } from '../checker.ts';
import { AVERAGED_METRICS, CLASS_METRICS, DEFAULT_AVERAGE, METRIC_MODULE_NAME } from '../defaults.ts';
import { TOP_K_LOSSES } from '../../shared/losses-table.ts';
import { hasClasses, hasTopK, lossLabel } from '../loss.ts';
import { metricKey, metricSuits, type OutputKind } from '../metric-keys.ts';
import { METRIC_NAMES, type LossEntry, type MetricName, type MetricSpec } from '../types.ts';

const METRICS_FORM = `a list of metric names (${METRIC_NAMES.join(', ')}), { name: precision, average: micro } or { module: ./metric.ts }`;

function metricName(v: unknown, keyPath: string): MetricName {
  if (METRIC_NAMES.includes(v as MetricName)) return v as MetricName;
  if (typeof v !== 'string') fail(keyPath, `a metric name (${METRIC_NAMES.join(', ')})`, v);
  const near = closest(v, METRIC_NAMES);
  const list = `known metrics: ${METRIC_NAMES.join(', ')}; or { module: ./metric.ts } for your own`;
  throw new ConfigError(keyPath, `unknown metric ${show(v)}`, near ? `did you mean '${near}'? ${list}` : list);
}

/**
 * `metrics`: null when absent (the shipped eval figures), else the list, checked against the loss;
 * with one loss per output (`outputs`), each metric applies to the outputs whose loss suits it,
 * and one that suits none is refused.
 */
export function metrics(raw: unknown, loss: LossEntry, baseDir: string, hasEval: boolean, outputs: OutputKind[] | null): MetricSpec[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length === 0)
    fail('metrics', `a non-empty list: ${METRICS_FORM}`, raw, 'remove metrics for the default eval figures (loss, accuracy, top-k, mae)');
  if (!hasEval) {
    throw new ConfigError('metrics', 'is set, but there is no data.eval (or data.evalFraction) to evaluate on', 'set data.eval, or remove metrics');
  }
  const out: MetricSpec[] = [];
  const seen = new Map<string, string>(); // log key -> where it was listed
  raw.forEach((item, i) => {
    const at = `metrics[${i}]`;
    const spec = metricSpec(item, at, baseDir, seen);
    if (!('module' in spec)) checkMetricFits(spec, at, loss, outputs);
    // Custom values are logged as <name>.<key>: their names cannot meet a built-in key.
    const key = 'module' in spec ? `${spec.name}.` : metricKey(spec);
    if (seen.has(key) && !('module' in spec)) throw new ConfigError(at, `'${key}' is listed twice (also ${seen.get(key)})`, 'list each metric once');
    seen.set(key, at);
    out.push(spec);
  });
  return out;
}

/** One item of the list: a metric name, { name, average } or { module, name }. */
function metricSpec(item: unknown, at: string, baseDir: string, seen: Map<string, string>): MetricSpec {
  if (typeof item === 'string') {
    const name = metricName(item, at);
    return { name, average: AVERAGED_METRICS.includes(name) ? DEFAULT_AVERAGE : null };
  }
  if (isMapping(item) && Object.hasOwn(item, 'module')) return customMetric(item, at, baseDir, seen);
  if (isMapping(item)) {
    const s = Section.open(item, at, ['name', 'average']);
    if (!s.has('name'))
      throw new ConfigError(s.at('name'), `missing; expected a metric name (${METRIC_NAMES.join(', ')})`, 'or give module: for a custom metric');
    const name = metricName(s.obj.name, s.at('name'));
    if (s.has('average') && !AVERAGED_METRICS.includes(name)) {
      throw new ConfigError(s.at('average'), `'${name}' has no average`, `only ${AVERAGED_METRICS.join(', ')} take average (macro or micro); remove it`);
    }
    return { name, average: AVERAGED_METRICS.includes(name) ? s.opt('average', oneOf(['macro', 'micro'] as const), DEFAULT_AVERAGE) : null };
  }
  fail(at, METRICS_FORM.replace('a list of ', 'a '), item);
}

/** A custom metric `{ module, name }`: its name (the module's base name by default) names its values, once. */
function customMetric(item: Record<string, unknown>, at: string, baseDir: string, seen: Map<string, string>): MetricSpec {
  const s = Section.open(item, at, ['module', 'name']);
  const module = s.file('module', baseDir);
  const base = basename(module, extname(module));
  if (!s.has('name') && !METRIC_MODULE_NAME.test(base)) {
    throw new ConfigError(
      s.at('name'),
      `missing: the module's base name ${show(base)} cannot name its values`,
      'set name: letters, digits, _ and - (the values are logged as <name>.<key>)',
    );
  }
  const name = s.opt(
    'name',
    { expected: 'a name of letters, digits, _ and -', test: (v): v is string => typeof v === 'string' && METRIC_MODULE_NAME.test(v) },
    base,
  );
  if (seen.has(`${name}.`)) {
    throw new ConfigError(
      s.at('name'),
      `${show(name)} already names the custom metric of ${seen.get(`${name}.`)}`,
      'give each module its own name: its values are logged as <name>.<key>',
    );
  }
  return { module, name };
}

/**
 * A built-in metric against the loss: with one loss per output (`outputs`) it must suit one of
 * them; else class metrics need classes, and topK a softmax.
 */
function checkMetricFits(spec: Extract<MetricSpec, { average: unknown }>, at: string, loss: LossEntry, outputs: OutputKind[] | null): void {
  if (outputs) {
    const name = spec.name;
    if (!outputs.some((o) => metricSuits(name, o.loss))) {
      const kinds = outputs.map((o) => `'${o.name}' ${lossLabel(o.loss)}`).join(', ');
      throw new ConfigError(
        at,
        `'${name}' suits no output of the model (${kinds}): ${name === 'topK' ? 'it needs a softmax over classes (a categorical loss)' : 'it needs classes'}`,
        'remove it, or use mae or rmse for the regression outputs',
      );
    }
    return;
  }
  if (!hasClasses(loss) && CLASS_METRICS.includes(spec.name)) {
    throw new ConfigError(
      at,
      typeof loss === 'string'
        ? `'${spec.name}' needs classes, but loss is '${loss}' (a regression)`
        : `'${spec.name}' needs classes, but loss is a custom module (${loss.module}), which has none`,
      typeof loss === 'string'
        ? 'use mae or rmse for a regression, or a classification loss'
        : 'use mae, rmse or a custom metric module ({ module: ./metric.ts }) with a custom loss',
    );
  }
  if (spec.name === 'topK' && !hasTopK(loss)) {
    throw new ConfigError(
      at,
      `'topK' needs a score per class (a softmax), but loss is '${lossLabel(loss)}'`,
      `use ${TOP_K_LOSSES.join(' or ')}, or remove topK`,
    );
  }
}
