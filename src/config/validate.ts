// The schema of the experiment config: turns the raw parsed config (YAML or JSON, overrides
// applied) into a typed Config. Every problem is a ConfigError naming its key path; the first
// one found is thrown, none is dropped. Each section is read by its file in validate/, in the
// order below (which decides which error comes first); the generic checking (Section, Check)
// is checker.ts.

import { basename, dirname, extname, join, resolve } from 'node:path';
import { ConfigError } from '../shared/errors.ts';
import { int, isMapping, Section, show, text, type Check } from './checker.ts';
import { DEFAULT_NAME, LOG_DEFAULTS, NAME_PATTERN } from './defaults.ts';
import type { Config } from './types.ts';
import { checkpointSection } from './validate/checkpoint.ts';
import { dataSection, hasEvalData } from './validate/data.ts';
import { devicesSection } from './validate/devices.ts';
import { evalSection } from './validate/eval.ts';
import { checkLabelsFitLoss } from './validate/labels-fit-loss.ts';
import { lossSection } from './validate/loss.ts';
import { metrics } from './validate/metrics.ts';
import { checkNetClasses, modelSection, netInputFromData } from './validate/model.ts';
import { optimizer } from './validate/optimizer.ts';
import { reliabilitySection } from './validate/reliability.ts';
import { schedule } from './validate/schedule.ts';
import { trainingSection } from './validate/training.ts';
import { checkWatchers, type GivenModes } from './validate/watchers.ts';

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

  const model = modelSection(top.obj.model, baseDir);
  const losses = lossSection(top, baseDir);
  const data = dataSection(top.obj.data, baseDir);
  checkNetClasses(model, data);
  netInputFromData(model, data, top.obj.model);
  const hasEval = hasEvalData(data);
  const givenModes: GivenModes = new Map();
  const training = trainingSection(top.obj.training, losses.loss, data, givenModes);
  const opt = optimizer(top.obj.optimizer);
  const sched = schedule(top.obj.schedule, givenModes);
  const devices = devicesSection(top.obj.devices, baseDir);
  const log = { every: Section.open(top.obj.log, 'log', ['every']).opt('every', int(1), LOG_DEFAULTS.every) };
  const evaluation = evalSection(top.obj.eval, hasEval, training);
  const metricList = metrics(top.obj.metrics, losses.loss, baseDir, hasEval, losses.outputs);
  const checkpoint = checkpointSection(top.obj.checkpoint, givenModes);
  checkWatchers({ training, schedule: sched, checkpoint, eval: evaluation, metrics: metricList }, losses, hasEval, givenModes);
  const reliability = reliabilitySection(top.obj.reliability);
  checkLabelsFitLoss(data, losses.loss, training);

  return {
    name,
    model,
    loss: losses.spec,
    lossWeights: losses.weights,
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
