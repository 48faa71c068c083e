// The schema of the experiment config: turns the raw parsed config (YAML or JSON, overrides
// applied) into a typed Config. Every problem is a ConfigError naming its key path; the first
// one found is thrown, none is dropped. The generic checking (Section, Check) is checker.ts.

import { basename, dirname, extname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.ts';
import { bool, closest, fail, fraction, int, isMapping, nonNegative, oneOf, orNull, positive, real, Section, show, text, type Check } from './checker.ts';
import {
  AVERAGED_METRICS,
  CHECKPOINT_DEFAULTS,
  CLASS_METRICS,
  DEFAULT_AVERAGE,
  DEFAULT_EPOCHS,
  DEFAULT_NAME,
  EARLY_STOPPING_DEFAULTS,
  METRIC_MODULE_NAME,
  RELIABILITY_DEFAULTS,
  DEVICES_DEFAULTS,
  EVAL_DEFAULTS,
  EVAL_EVERY_WITH_EVAL_SET,
  LOG_DEFAULTS,
  METRIC_DIRECTION,
  MNIST_DEFAULTS,
  DATA_MODULE_DEFAULTS,
  MNIST_SIZE,
  MONITORS,
  NAME_PATTERN,
  OPTIMIZER_PARAMS,
  SCHEDULE_PARAMS,
  TRAINING_DEFAULTS,
  optimizerDefaults,
  scheduleDefaults,
} from './defaults.ts';
import {
  BACKEND_NAMES,
  type BestCheckpointConfig,
  type ClassWeights,
  CSV_LABEL_TYPES,
  type Config,
  type CustomLoss,
  type LossEntry,
  type LossSpec,
  type NpyFiles,
  DataSource,
  type EarlyStoppingConfig,
  type Every,
  FAILURE_POLICIES,
  LOSS_NAMES,
  METRIC_NAMES,
  type MetricName,
  type MetricSpec,
  type MonitorMode,
  NONFINITE_POLICIES,
  OPTIMIZER_NAMES,
  OptimizerConfig,
  SCHEDULE_NAMES,
  ScheduleConfig,
} from './types.ts';
import { TOP_K_LOSSES } from '../losses-table.ts';
import { metricKey, metricSuits } from '../metrics-table.ts';
import { hasClasses, hasTopK, isCustomLoss, labelsOf, lossLabel, oneLoss, perOutputLosses } from './loss.ts';

const TOP_KEYS = [
  'name',
  'model',
  'loss',
  'lossWeights',
  'data',
  'training',
  'optimizer',
  'schedule',
  'devices',
  'log',
  'eval',
  'metrics',
  'checkpoint',
  'reliability',
  'runDir',
];

const runName: Check<string> = {
  expected: "a name of letters, digits, '.', '_' and '-'",
  test: (v): v is string => typeof v === 'string' && NAME_PATTERN.test(v) && v !== '.' && v !== '..',
};

function dataSource(raw: unknown, path: string, baseDir: string): DataSource {
  if (!isMapping(raw)) fail(path, "a mapping with a type ('npy', 'csv', 'module' or 'mnist')", raw);
  const types = oneOf(['npy', 'csv', 'module', 'mnist'] as const);
  const type = raw.type;
  if (!types.test(type)) fail(`${path}.type`, types.expected, type);
  if (type === 'npy') {
    const s = Section.open(raw, path, ['type', 'features', 'labels', 'weights']);
    const weights = s.has('weights') && s.obj.weights !== null ? s.file('weights', baseDir) : null;
    return { type, features: npyFiles(s, 'features', baseDir), labels: npyFiles(s, 'labels', baseDir), weights };
  }
  if (type === 'csv') {
    const s = Section.open(raw, path, ['type', 'path', 'label', 'labelType', 'weight']);
    const labelTypes = oneOf(CSV_LABEL_TYPES);
    if (s.has('labelType') && !labelTypes.test(s.obj.labelType)) {
      fail(
        s.at('labelType'),
        labelTypes.expected,
        s.obj.labelType,
        'index: class indices 0..K-1; float: numeric targets (regression); class: class names such as cat, dog (mapped to indices, saved as labels.json)',
      );
    }
    const label = s.req('label', text);
    const weight = s.opt('weight', orNull(text), null);
    if (weight !== null && weight === label) {
      throw new ConfigError(
        s.at('weight'),
        `names the label column ${show(label)} too`,
        'the weight column is a column of its own: one weight per row, not a feature and not the label',
      );
    }
    return { type, path: s.file('path', baseDir), label, labelType: s.opt('labelType', labelTypes, 'index'), weight };
  }
  if (Object.hasOwn(raw, 'weights') || Object.hasOwn(raw, 'weight')) {
    const key = Object.hasOwn(raw, 'weights') ? 'weights' : 'weight';
    throw new ConfigError(
      `${path}.${key}`,
      `sample weights are not read from a '${type}' source`,
      'give them with an npy source (weights: w.npy) or a csv source (weight: <column>)',
    );
  }
  if (type === 'module') {
    const s = Section.open(raw, path, ['type', 'module', 'maxSamples']);
    return { type, module: s.file('module', baseDir), maxSamples: s.opt('maxSamples', int(1), DATA_MODULE_DEFAULTS.maxSamples) };
  }
  const s = Section.open(raw, path, ['type', 'offset', 'count', 'labels']);
  const offset = s.opt('offset', int(0, MNIST_SIZE - 1), MNIST_DEFAULTS.offset);
  const count = s.opt('count', int(1), MNIST_SIZE - offset);
  if (offset + count > MNIST_SIZE) {
    throw new ConfigError(s.at('count'), `offset ${offset} + count ${count} is past the ${MNIST_SIZE} mnist digits`, `use count <= ${MNIST_SIZE - offset}`);
  }
  return { type, offset, count, labels: s.opt('labels', oneOf(['onehot', 'index'] as const), MNIST_DEFAULTS.labels) };
}

/**
 * npy features or labels: one file, or a mapping of the model's input (output) names to files,
 * for a model with several; which names the model has is checked once it is built.
 */
function npyFiles(s: Section, key: 'features' | 'labels', baseDir: string): NpyFiles {
  const v = s.obj[key];
  if (!isMapping(v)) return s.file(key, baseDir);
  const names = Object.keys(v);
  const what = key === 'features' ? 'input' : 'output';
  if (names.length === 0) fail(s.at(key), `a file, or a mapping of the model's ${what} names to files`, v);
  const out: Record<string, string> = {};
  for (const name of names) out[name] = Section.open(v, s.at(key), names).file(name, baseDir);
  return out;
}

const LOSS_FORM = `${oneOf(LOSS_NAMES).expected}, or { module: ./my-loss.ts } (a custom loss)`;

/** A custom loss entry `{ module: <file> }` at `path`: the file resolved against the config's directory. */
function customLoss(raw: Record<string, unknown>, path: string, baseDir: string): CustomLoss {
  const s = Section.open(raw, path, ['module']);
  if (!s.has('module')) fail(path, `a loss: ${LOSS_FORM}`, raw);
  return { module: s.file('module', baseDir) };
}

/**
 * `loss`: one loss for every output, or a mapping of the model's output names to losses; a loss
 * is a built-in name or `{ module: <file> }`. The one rule for a mapping (isCustomLoss): its only
 * key `module` with a string value that is not a built-in name is a custom loss for every
 * output; any other mapping is per output (an output named `module` is written
 * `{ module: { module: ./x.ts } }` or `{ module: meanSquaredError }`).
 */
function lossSpec(top: Section, baseDir: string): LossSpec {
  const names = oneOf(LOSS_NAMES);
  if (!top.has('loss') || !isMapping(top.obj.loss)) {
    if (top.has('loss') && typeof top.obj.loss === 'string' && !names.test(top.obj.loss)) {
      const near = closest(top.obj.loss, LOSS_NAMES);
      fail(
        'loss',
        LOSS_FORM,
        top.obj.loss,
        near ? `did you mean ${near}?` : 'a custom loss is a module: loss: { module: ./my-loss.ts } (a path alone is not read as a module)',
      );
    }
    return top.req('loss', names);
  }
  const raw = top.obj.loss;
  if (isCustomLoss(raw)) return customLoss(raw, 'loss', baseDir);
  const entries = Object.entries(raw);
  if (entries.length === 0) fail('loss', `${LOSS_FORM}, or a mapping of the model's output names to them`, raw);
  const out: Record<string, LossEntry> = {};
  for (const [output, v] of entries) {
    const at = `loss.${output}`;
    if (isMapping(v)) {
      out[output] = customLoss(v, at, baseDir);
      continue;
    }
    if (!names.test(v)) {
      const hint =
        output === 'module'
          ? 'one custom loss for every output is loss: { module: ./my-loss.ts } with no other key; for an output named module, write loss.module: { module: ./x.ts } or a built-in name'
          : typeof v === 'string'
            ? closest(v, LOSS_NAMES) !== undefined
              ? `did you mean ${closest(v, LOSS_NAMES)}?`
              : `a custom loss is a module: ${at}: { module: ${v} }`
            : undefined;
      fail(at, LOSS_FORM, v, hint);
    }
    out[output] = v;
  }
  return out;
}

/** `lossWeights`: null, or a mapping of output names to weights (finite, >= 0). */
function lossWeights(top: Section): Record<string, number> | null {
  const v = top.has('lossWeights') ? top.obj.lossWeights : null;
  if (v === null || v === undefined) return null;
  if (!isMapping(v) || Object.keys(v).length === 0) fail('lossWeights', "a mapping of the model's output names to weights, e.g. { class: 1, box: 0.5 }", v);
  const out: Record<string, number> = {};
  for (const [output, w] of Object.entries(v)) {
    if (!nonNegative.test(w)) fail(`lossWeights.${output}`, nonNegative.expected, w);
    out[output] = w;
  }
  return out;
}

/**
 * With one loss per output, class weights are refused: they weigh one output's classes. (Eval
 * metrics and monitors apply per output: `metrics` and resolveMonitor below.)
 */
function checkPerOutputLoss(loss: LossSpec, classWeightsRaw: unknown): void {
  if (oneLoss(loss) !== null) return;
  if (classWeightsRaw !== undefined && classWeightsRaw !== null) {
    throw new ConfigError(
      'training.classWeights',
      "is set, but loss names one loss per output: class weights weigh one output's classes",
      'weigh samples with sample weights (npy weights:) instead',
    );
  }
}

/**
 * An interval: a step count (0: never in the middle of the run), `epoch`, or `{ epochs: k }`;
 * `epoch` resolves to `{ epochs: 1 }`, so the resolved config always has one of two shapes.
 */
function interval(s: Section, key: string, fallback: Every): Every {
  if (!s.has(key)) return fallback;
  const v = s.obj[key];
  const expected = "a step count (an integer >= 0), 'epoch', or { epochs: k }";
  if (v === 'epoch') return { epochs: 1 };
  if (isMapping(v)) {
    const e = Section.open(v, s.at(key), ['epochs']);
    return { epochs: e.req('epochs', int(1)) };
  }
  if (!int(0).test(v))
    fail(s.at(key), expected, v, typeof v === 'string' && /^epochs?$/i.test(v.trim()) ? 'write epoch (lower case, singular) or { epochs: k }' : undefined);
  return v;
}

const DIRECTION: Record<MonitorMode, string> = { min: 'downward (mode: min)', max: 'upward (mode: max)' };

/** The mode each watcher's section gave (null: none), by key path; its default needs the metrics. */
type GivenModes = Map<string, MonitorMode | null>;

/**
 * monitor and mode of a section that watches an eval figure, as given: which figures exist
 * depends on `metrics`, read later; resolveMonitor checks the monitor and settles the mode.
 */
function monitorAndMode(s: Section, fallback: string, given: GivenModes): { monitor: string; mode: MonitorMode } {
  const monitor = s.opt('monitor', text, fallback);
  const mode = s.has('mode') ? s.req('mode', oneOf(['min', 'max'] as const)) : null;
  given.set(s.path, mode);
  return { monitor, mode: mode ?? 'min' };
}

/**
 * One output of a model with several, as a monitor or a metric sees it: its name, its loss, and
 * its classes (the last dimension) once the model is built (null before: not known yet).
 */
export interface OutputKind {
  name: string;
  loss: LossEntry;
  classes: number | null;
}

// Whether a built-in metric is measured for an output of this loss, and the key it is logged
// under: read from the metric table (src/shared/metrics-table.ts).
export { metricKey, metricSuits };

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
  const several = Array.isArray(outputs) && outputs.length > 1 ? outputs : null;
  const known = monitorable(metricList, several, topK);
  // A custom metric's value: eval.<name>.<key> (with several outputs, eval.<name>.<key>.<output>).
  const custom = (metricList ?? []).find((m) => {
    if (!('module' in m) || !w.monitor.startsWith(`eval.${m.name}.`)) return false;
    const rest = w.monitor.slice(`eval.${m.name}.`.length);
    return several ? several.some((o) => rest.endsWith(`.${o.name}`) && rest.length > o.name.length + 1) : rest.length > 0;
  });
  const found =
    (custom ? { name: w.monitor, mode: null } : known.find((k) => k.name === w.monitor)) ?? (outputs === 'unknown' ? perOutputForm(w.monitor, known) : null);
  if (!found) {
    const names = known.map((k) => k.name);
    const near = closest(w.monitor, names) ?? (metricList ? names.find((n) => n.startsWith(`eval.${w.monitor.replace(/^eval\./, '')}_`)) : undefined);
    throw new ConfigError(
      `${keyPath}.monitor`,
      `expected one of ${names.map((n) => `'${n}'`).join(', ')}, got ${show(w.monitor)}`,
      several
        ? `${near ? `did you mean ${near}? ` : ''}with several outputs a monitor names the total eval.loss or one output's figure, eval.<figure>.<output> (add a metric to metrics: to watch it)`
        : `${near ? `did you mean ${near}? ` : ''}a monitor names a figure of metrics.jsonl's eval line: eval.loss, eval.accuracy, eval.top_k, eval.mae, or a value of the config's metrics (add the metric to metrics: to watch it)`,
    );
  }
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

function bestCheckpoint(raw: unknown, path: string, given: GivenModes): BestCheckpointConfig | null {
  if (raw === null || raw === undefined) return null;
  const s = Section.open(raw, path, ['monitor', 'mode']);
  return monitorAndMode(s, 'eval.loss', given);
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

const CLASS_INDEX = /^(0|[1-9][0-9]*)$/;
const classWeight = real('a finite number >= 0', (x) => x >= 0);

/**
 * training.classWeights: { <class index>: weight } or a list by index, read as the map; with
 * class names in data.train, { <class name>: weight }; null when absent. Only a classification
 * loss has classes to weigh.
 */
function classWeights(raw: unknown, path: string, loss: LossEntry, byName: boolean): ClassWeights | null {
  if (raw === undefined || raw === null) return null;
  if (byName && Array.isArray(raw)) {
    throw new ConfigError(
      path,
      'is a list, but data.train reads class names (labelType: class)',
      'name the classes: e.g. { cat: 1, dog: 4 }; a class not named weighs 1',
    );
  }
  const form = byName ? 'a mapping { <class name>: weight }' : 'a mapping { <class index>: weight } or a list of weights by class index';
  const entries: Array<[string, unknown, string]> = Array.isArray(raw)
    ? raw.map((v, i) => [String(i), v, `${path}[${i}]`])
    : isMapping(raw)
      ? Object.entries(raw).map(([k, v]) => [k, v, `${path}.${k}`])
      : fail(path, form, raw);
  if (entries.length === 0) fail(path, `${form} naming at least one class`, raw, 'remove training.classWeights to weigh every class 1');
  if (!hasClasses(loss)) {
    throw new ConfigError(
      path,
      typeof loss === 'string'
        ? `is set, but loss is '${loss}' (a regression: there are no classes to weigh)`
        : `is set, but loss is a custom module (${loss.module}): it has no classes to weigh`,
      'weigh samples with a weights file (npy: weights:) or column (csv: weight:), or use a classification loss',
    );
  }
  const out: ClassWeights = {};
  for (const [key, v, at] of entries) {
    // With class names (labelType: class) a key is a name, matched to its index once the
    // classes are known (resolveClassWeights); otherwise an index, as the labels give it.
    if (!byName && !CLASS_INDEX.test(key)) {
      throw new ConfigError(
        at,
        `${show(key)} is not a class index (expected 0, 1, 2, ...)`,
        'name classes by their index, as the labels give it; class names are keys when data.train has labelType: class',
      );
    }
    if (!classWeight.test(v))
      fail(
        at,
        classWeight.expected,
        v,
        typeof v === 'number' && v < 0 ? "a weight scales the loss of that class's samples: 0 ignores them, 1 leaves them as they are" : undefined,
      );
    out[key] = v;
  }
  return out;
}

function optimizer(raw: unknown): OptimizerConfig {
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

function schedule(raw: unknown, given: GivenModes): ScheduleConfig {
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
function metrics(raw: unknown, loss: LossEntry, baseDir: string, hasEval: boolean, outputs: OutputKind[] | null): MetricSpec[] | null {
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
    let spec: MetricSpec;
    if (typeof item === 'string') {
      const name = metricName(item, at);
      spec = { name, average: AVERAGED_METRICS.includes(name) ? DEFAULT_AVERAGE : null };
    } else if (isMapping(item) && Object.hasOwn(item, 'module')) {
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
      spec = { module, name };
    } else if (isMapping(item)) {
      const s = Section.open(item, at, ['name', 'average']);
      if (!s.has('name'))
        throw new ConfigError(s.at('name'), `missing; expected a metric name (${METRIC_NAMES.join(', ')})`, 'or give module: for a custom metric');
      const name = metricName(s.obj.name, s.at('name'));
      if (s.has('average') && !AVERAGED_METRICS.includes(name)) {
        throw new ConfigError(s.at('average'), `'${name}' has no average`, `only ${AVERAGED_METRICS.join(', ')} take average (macro or micro); remove it`);
      }
      spec = { name, average: AVERAGED_METRICS.includes(name) ? s.opt('average', oneOf(['macro', 'micro'] as const), DEFAULT_AVERAGE) : null };
    } else {
      fail(at, METRICS_FORM.replace('a list of ', 'a '), item);
    }
    if (!('module' in spec) && outputs) {
      const name = spec.name;
      if (!outputs.some((o) => metricSuits(name, o.loss))) {
        const kinds = outputs.map((o) => `'${o.name}' ${lossLabel(o.loss)}`).join(', ');
        throw new ConfigError(
          at,
          `'${name}' suits no output of the model (${kinds}): ${name === 'topK' ? 'it needs a softmax over classes (a categorical loss)' : 'it needs classes'}`,
          'remove it, or use mae or rmse for the regression outputs',
        );
      }
    } else if (!('module' in spec)) {
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
    // Custom values are logged as <name>.<key>: their names cannot meet a built-in key.
    const key = 'module' in spec ? `${spec.name}.` : metricKey(spec);
    if (seen.has(key) && !('module' in spec)) throw new ConfigError(at, `'${key}' is listed twice (also ${seen.get(key)})`, 'list each metric once');
    seen.set(key, at);
    out.push(spec);
  });
  return out;
}

/** data.classes: null, or a list of distinct, non-empty class names (text: quote numbers). */
function classList(d: Section): string[] | null {
  if (!d.has('classes') || d.obj.classes === null) return null;
  const v = d.obj.classes;
  const at = d.at('classes');
  if (!Array.isArray(v) || v.length === 0)
    fail(
      at,
      'a non-empty list of class names, e.g. [cat, dog, bird]',
      v,
      "the order is that of the model's outputs; remove data.classes to use the sorted names of data.train",
    );
  v.forEach((c, i) => {
    if (typeof c !== 'string')
      fail(
        `${at}[${i}]`,
        'a class name (text)',
        c,
        typeof c === 'number' || typeof c === 'boolean' ? `quote it as the CSV writes it: '${String(c)}'` : undefined,
      );
    if (c.trim() !== c || c === '')
      fail(`${at}[${i}]`, 'a class name without spaces around it', c, 'spaces and tabs around a name in the CSV are ignored: write the name alone');
    if (v.indexOf(c) !== i) throw new ConfigError(`${at}[${i}]`, `${JSON.stringify(c)} is listed twice (also ${at}[${v.indexOf(c)}])`, 'list each class once');
  });
  return [...(v as string[])];
}

/**
 * labelType 'class' gives class indices: sparseCategoricalCrossentropy's labels. Eval names are
 * encoded with the training mapping, so eval can read names only if training has a mapping.
 */
function checkClassLabels(data: Config['data'], loss: LossEntry): void {
  const named = (src: DataSource | null) => src?.type === 'csv' && src.labelType === 'class';
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const) {
    if (!named(src) || labelsOf(loss) === 'index') continue;
    throw new ConfigError(
      `${key}.labelType`,
      `'class' gives class indices, which loss ${typeof loss === 'string' ? `'${loss}'` : lossLabel(loss)} does not take`,
      !hasClasses(loss)
        ? 'class names need a classification loss: loss: sparseCategoricalCrossentropy (or labelType: float for numeric targets)'
        : 'use loss: sparseCategoricalCrossentropy (a softmax with one output per class; two classes work as two outputs)',
    );
  }
  if (named(data.eval) && !named(data.train) && data.classes === null) {
    throw new ConfigError(
      'data.eval.labelType',
      "is 'class', but data.train has no class names to map them with",
      'set data.train.labelType: class, or list the classes in data.classes',
    );
  }
  if (data.classes !== null && !named(data.train) && !named(data.eval)) {
    throw new ConfigError('data.classes', 'is set, but no data source reads class names', 'set labelType: class on the CSV source, or remove data.classes');
  }
}

function gpus(s: Section): 'all' | number[] {
  const v = s.has('gpus') ? s.obj.gpus : DEVICES_DEFAULTS.gpus;
  if (v === 'all') return v;
  if (!Array.isArray(v) || v.length === 0) {
    fail(s.at('gpus'), "'all' or a non-empty list of distinct GPU ids", v, typeof v === 'number' ? `for one GPU write [${v}]` : undefined);
  }
  v.forEach((id, i) => {
    if (!int(0).test(id)) fail(`${s.at('gpus')}[${i}]`, 'a GPU id (an integer >= 0)', id);
    if (v.indexOf(id) !== i) throw new ConfigError(`${s.at('gpus')}[${i}]`, `GPU ${id} is listed twice`);
  });
  return [...(v as number[])];
}

export function validateConfig(raw: unknown, opts: { configPath: string | null; cwd: string }): Config {
  const configPath = opts.configPath === null ? null : resolve(opts.cwd, opts.configPath);
  const baseDir = configPath === null ? opts.cwd : dirname(configPath);
  if (isMapping(raw) && Object.hasOwn(raw, 'configPath')) {
    throw new ConfigError('configPath', 'is set by the loader to the file it read; it cannot be given in the config', 'remove it');
  }
  const top = Section.open(raw, '', TOP_KEYS);

  const fallbackName = configPath === null ? DEFAULT_NAME : basename(configPath, extname(configPath));
  if (!top.has('name') && !runName.test(fallbackName)) {
    throw new ConfigError('name', `the config file's name ${show(fallbackName)} is not ${runName.expected}`, 'set name in the config');
  }
  const name = top.opt('name', runName, fallbackName);

  const m = Section.open(top.obj.model, 'model', ['module', 'json', 'customLayers']);
  const [module, json] = [m.opt('module', orNull(text), null), m.opt('json', orNull(text), null)];
  if ((module === null) === (json === null)) {
    throw new ConfigError(
      'model',
      module === null ? 'neither model.module nor model.json is set' : 'both model.module and model.json are set',
      'set exactly one: module (a JS/TS module whose default export builds the model) or json (a tfjs model.json)',
    );
  }
  const model = {
    module: module === null ? null : m.file('module', baseDir),
    json: json === null ? null : m.file('json', baseDir),
    customLayers: m.opt('customLayers', orNull(text), null) === null ? null : m.file('customLayers', baseDir),
  };

  const lossAll = lossSpec(top, baseDir);
  // The checks below that read the loss's kind (metrics, monitors, class weights) are for one
  // loss; with one loss per output, metrics and monitors are checked per output (`outputs`, their
  // classes known once the model is built) and class weights are refused (checkPerOutputLoss).
  const each = perOutputLosses(lossAll);
  const loss: LossEntry = each === null ? (lossAll as LossEntry) : Object.values(each)[0]!;
  const outputs: OutputKind[] | null =
    each !== null && Object.keys(each).length > 1 ? Object.entries(each).map(([name, l]) => ({ name, loss: l, classes: null })) : null;
  const lossWeightMap = lossWeights(top);
  checkPerOutputLoss(lossAll, isMapping(top.obj.training) ? top.obj.training.classWeights : undefined);

  const d = Section.open(top.obj.data, 'data', ['train', 'eval', 'evalFraction', 'classes']);
  if (!d.has('train')) throw new ConfigError(d.at('train'), "missing; expected a data source (type 'npy', 'csv', 'module' or 'mnist')");
  const data = {
    train: dataSource(d.obj.train, d.at('train'), baseDir),
    eval: d.has('eval') && d.obj.eval !== null ? dataSource(d.obj.eval, d.at('eval'), baseDir) : null,
    evalFraction: d.opt('evalFraction', orNull(real('a number in (0, 1)', (x) => x > 0 && x < 1)), null),
    classes: classList(d),
  };
  if (data.eval !== null && data.evalFraction !== null) {
    throw new ConfigError('data.evalFraction', 'is set, but so is data.eval', 'hold out a fraction of train, or give an eval set: not both');
  }

  const givenModes: GivenModes = new Map();
  const t = Section.open(top.obj.training, 'training', [
    'batchSize',
    'epochs',
    'steps',
    'dropLast',
    'seed',
    'accumulateSteps',
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
  const training = {
    batchSize,
    epochs: epochs === null && steps === null ? DEFAULT_EPOCHS : epochs,
    steps,
    dropLast: t.opt('dropLast', bool, TRAINING_DEFAULTS.dropLast),
    seed: t.opt('seed', int(0), TRAINING_DEFAULTS.seed),
    accumulateSteps: t.opt('accumulateSteps', int(1), TRAINING_DEFAULTS.accumulateSteps),
    clipNorm: t.opt('clipNorm', orNull(positive), TRAINING_DEFAULTS.clipNorm),
    ema: t.opt('ema', orNull(real('a number in (0, 1)', (x) => x > 0 && x < 1)), TRAINING_DEFAULTS.ema),
    earlyStopping: earlyStopping(t.obj.earlyStopping, t.at('earlyStopping'), givenModes),
    classWeights: classWeights(t.obj.classWeights, t.at('classWeights'), loss, data.train.type === 'csv' && data.train.labelType === 'class'),
  };
  const opt = optimizer(top.obj.optimizer);
  const sched = schedule(top.obj.schedule, givenModes);

  const dev = Section.open(top.obj.devices, 'devices', Object.keys(DEVICES_DEFAULTS));
  const devices = {
    gpus: gpus(dev),
    simulate: dev.opt('simulate', int(0), DEVICES_DEFAULTS.simulate),
    backend: dev.opt('backend', oneOf(BACKEND_NAMES), DEVICES_DEFAULTS.backend),
    shmDir: resolve(baseDir, dev.opt('shmDir', text, DEVICES_DEFAULTS.shmDir)),
    replaceWasmKernels: dev.opt('replaceWasmKernels', bool, DEVICES_DEFAULTS.replaceWasmKernels),
    workersPerGpu: dev.opt('workersPerGpu', int(1), DEVICES_DEFAULTS.workersPerGpu),
    allowSoftwareAdapter: dev.opt('allowSoftwareAdapter', bool, DEVICES_DEFAULTS.allowSoftwareAdapter),
    allowUnpinned: dev.opt('allowUnpinned', bool, DEVICES_DEFAULTS.allowUnpinned),
    oversubscribe: dev.opt('oversubscribe', bool, DEVICES_DEFAULTS.oversubscribe),
  };
  // Simulated GPUs are workers on one CPU backend: a GPU list or the GPU backend would go unused.
  if (devices.simulate > 0 && devices.gpus !== 'all') {
    throw new ConfigError('devices.gpus', 'lists GPUs, but devices.simulate runs simulated ones', 'remove devices.gpus, or set devices.simulate to 0');
  }
  if (devices.simulate > 0 && devices.backend === 'tfjs-node-gpu') {
    throw new ConfigError('devices.backend', "is 'tfjs-node-gpu', but devices.simulate runs on a CPU backend", "use 'auto', 'tfjs-node', 'wasm' or 'cpu'");
  }
  if (devices.simulate > 0 && devices.backend === 'webgpu') {
    throw new ConfigError(
      'devices.backend',
      "is 'webgpu', but devices.simulate runs simulated GPUs on a CPU backend",
      'set devices.simulate to 0: webgpu runs on the adapters it finds (devices.allowSoftwareAdapter: true for a software one, devices.workersPerGpu: k to share it)',
    );
  }
  if (devices.simulate > 0 && devices.workersPerGpu > 1) {
    throw new ConfigError(
      'devices.workersPerGpu',
      'shares a GPU between workers, but devices.simulate runs simulated GPUs',
      'set devices.simulate to the number of workers you want instead',
    );
  }

  const log = { every: Section.open(top.obj.log, 'log', ['every']).opt('every', int(1), LOG_DEFAULTS.every) };

  const e = Section.open(top.obj.eval, 'eval', ['every', 'batchSize', 'topK', 'useEma']);
  const hasEval = data.eval !== null || data.evalFraction !== null;
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

  const metricList = metrics(top.obj.metrics, loss, baseDir, data.eval !== null || data.evalFraction !== null, outputs);

  const c = Section.open(top.obj.checkpoint, 'checkpoint', ['every', 'keep', 'best']);
  const checkpoint = {
    every: interval(c, 'every', CHECKPOINT_DEFAULTS.every),
    keep: c.opt('keep', int(1), CHECKPOINT_DEFAULTS.keep),
    best: bestCheckpoint(c.obj.best, c.at('best'), givenModes),
  };

  // What watches an eval figure needs evaluations that have it; early stopping and the plateau
  // schedule need them during the run, not only at its end.
  const watchers: Array<[string, { monitor: string; mode: MonitorMode }, boolean]> = [];
  if (checkpoint.best) watchers.push(['checkpoint.best', checkpoint.best, false]);
  if (training.earlyStopping) watchers.push(['training.earlyStopping', training.earlyStopping, true]);
  if (sched.name === 'plateau') watchers.push(['schedule', sched, true]);
  for (const [keyPath, watched, during] of watchers) {
    const monitor = watched.monitor;
    // With one loss per output, what each output measures is in the list resolveMonitor checks.
    checkMonitor(keyPath, monitor, hasEval, outputs ? null : loss);
    resolveMonitor(keyPath, watched, givenModes.get(keyPath) ?? null, metricList, outputs ?? (oneLoss(lossAll) !== null ? 'unknown' : null), evaluation.topK);
    if (during && evaluation.every === 0) {
      throw new ConfigError(
        keyPath,
        `${keyPath === 'schedule' ? "schedule 'plateau'" : 'early stopping'} acts on evaluations during the run, but eval.every is 0 (evaluate at the end only)`,
        'set eval.every to epoch (the default with an eval set), { epochs: k } or a step count',
      );
    }
  }

  const r = Section.open(top.obj.reliability, 'reliability', Object.keys(RELIABILITY_DEFAULTS));
  const RD = RELIABILITY_DEFAULTS;
  const reliability = {
    onWorkerFailure: r.opt('onWorkerFailure', oneOf(FAILURE_POLICIES), RD.onWorkerFailure),
    maxRestarts: r.opt('maxRestarts', int(0), RD.maxRestarts),
    stepTimeout: r.opt('stepTimeout', positive, RD.stepTimeout),
    stallFactor: r.opt('stallFactor', nonNegative, RD.stallFactor),
    stallMinSeconds: r.opt('stallMinSeconds', positive, RD.stallMinSeconds),
    onNonFinite: r.opt('onNonFinite', oneOf(NONFINITE_POLICIES), RD.onNonFinite),
    maxSkippedFraction: r.opt(
      'maxSkippedFraction',
      real('a number in [0, 1]', (x) => x >= 0 && x <= 1),
      RD.maxSkippedFraction,
    ),
  };

  checkClassLabels(data, loss);
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const) {
    if (src?.type !== 'mnist') continue;
    // A custom loss reads either form its own way.
    if (typeof loss !== 'string') continue;
    const fits = (src.labels === 'index') === (labelsOf(loss) === 'index');
    if (!fits) {
      throw new ConfigError(
        `${key}.labels`,
        `'${src.labels}' labels do not fit loss '${loss}'`,
        src.labels === 'index'
          ? 'class-index labels need loss sparseCategoricalCrossentropy'
          : 'sparseCategoricalCrossentropy needs class-index labels: set labels: index',
      );
    }
  }
  if (data.train.type === 'mnist' && training.dropLast && batchSize > data.train.count) {
    throw new ConfigError(
      'training.batchSize',
      `${batchSize} is more than the ${data.train.count} training samples, and dropLast drops that one short batch`,
      'lower training.batchSize, or set training.dropLast: false',
    );
  }

  return {
    name,
    model,
    loss: lossAll,
    lossWeights: lossWeightMap,
    data,
    training,
    optimizer: opt,
    schedule: sched,
    devices,
    log,
    eval: evaluation,
    metrics: metricList,
    checkpoint,
    reliability,
    // A runDir written in the config is a path like the others (against the config file's
    // directory); the default runs/<name> is under the working directory, as `runs/` is.
    runDir: top.has('runDir') ? resolve(baseDir, top.req('runDir', text)) : resolve(opts.cwd, join('runs', name)),
    configPath,
  };
}

export { isMapping, show } from './checker.ts';
