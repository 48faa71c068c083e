// What a config says about a model's several inputs and outputs, checked against the model the
// workers built: the loss of each output and its weight (Keras's loss and loss_weights), and the
// features and labels files of each split, matched by the model's input and output names. Every
// name the model lacks, and every name of the model the config leaves out, is named, and so is an
// output too narrow for its loss (a softmax over one class), before step 0 rather than in it.
import { lossKeyPath, lossOf, perOutputLosses } from '../../config/loss.ts';
import { LOSSES } from '../../shared/losses-table.ts';
import type { Config, LossEntry } from '../../config/types.ts';
import { ConfigError, DataError } from '../../shared/errors.ts';
import type { ModelLayout, ModelPort } from '../../shared/layout.ts';
import type { NamedArray } from '../../data/rows.ts';

export interface OutputLoss {
  port: ModelPort;
  loss: LossEntry;
  weight: number; // lossWeights[output], default 1
}

const list = (ports: ModelPort[]) => ports.map((p) => `'${p.name}'`).join(', ');

/** One loss and weight per model output, in the model's order. */
export function outputLosses(cfg: Pick<Config, 'loss' | 'lossWeights'>, layout: ModelLayout): OutputLoss[] {
  const outputs = layout.outputs;
  const names = new Set(outputs.map((o) => o.name));
  const each = perOutputLosses(cfg.loss);
  if (each !== null) {
    for (const name of Object.keys(each)) {
      if (!names.has(name))
        throw new ConfigError(
          `loss.${name}`,
          `the model has no output '${name}' (its outputs: ${list(outputs)})`,
          "key loss by the names of the model's output layers (model.outputNames)",
        );
    }
    const missing = outputs.filter((o) => !Object.hasOwn(each, o.name));
    if (missing.length) {
      throw new ConfigError(
        'loss',
        `names no loss for the model's output${missing.length > 1 ? 's' : ''} ${list(missing)} (its outputs: ${list(outputs)})`,
        'give every output a loss, or one loss name for all of them',
      );
    }
  }
  for (const name of Object.keys(cfg.lossWeights ?? {})) {
    if (!names.has(name))
      throw new ConfigError(
        `lossWeights.${name}`,
        `the model has no output '${name}' (its outputs: ${list(outputs)})`,
        "key lossWeights by the names of the model's output layers; an output not named weighs 1",
      );
  }
  const losses = outputs.map((port) => ({ port, loss: lossOf(cfg.loss, port.name)!, weight: cfg.lossWeights?.[port.name] ?? 1 }));
  for (const o of losses) checkUnits(o, cfg.loss);
  return losses;
}

/**
 * An output whose last dimension has fewer units than its built-in loss needs (the table's
 * leastUnits): a categorical loss on one unit (a 1-unit head, a one-class image folder) would
 * fail in every worker's first step (tfjs: "depth must be >=2") or train nothing.
 */
function checkUnits({ port, loss }: OutputLoss, spec: Config['loss']): void {
  const units = port.shape[port.shape.length - 1];
  if (typeof loss !== 'string' || typeof units !== 'number' || units >= LOSSES[loss].leastUnits) return;
  throw new ConfigError(
    lossKeyPath(spec, port.name),
    `${loss} needs at least ${LOSSES[loss].leastUnits} classes, but the model's output '${port.name}' has ${units} unit${units === 1 ? '' : 's'} (shape [${port.shape.map(String).join(', ')}]): one class is no choice`,
    'a yes/no output is one sigmoid unit with binaryCrossentropy (labels 0 and 1); else give the output one unit per class (at least 2, and data with at least 2 classes)',
  );
}

/**
 * A split's arrays in the order of the model's `ports` (inputs or outputs): its one array for a
 * model with one, else its named arrays (files by name, or a sample module's x or y keyed by
 * name), which must name every port and nothing else.
 */
export function matchPorts(arrays: NamedArray[], ports: ModelPort[], keyPath: string, key: 'features' | 'labels'): NamedArray[] {
  const what = key === 'features' ? 'input' : 'output';
  const module = arrays[0]!.module;
  // Where a name comes from, as the user wrote it: a key of features/labels, or of a module's x/y.
  const at = (name: string) => (module ? `${keyPath}: ${arrays[0]!.file}'s ${module}.${name}` : `${keyPath}.${key}.${name}`);
  if (arrays.length === 1 && arrays[0]!.name === '') {
    if (ports.length === 1) return arrays;
    throw new DataError(
      module
        ? `${keyPath}: the model has ${ports.length} ${what}s (${list(ports)}) but ${arrays[0]!.file} yields one ${module} per sample`
        : `${keyPath}.${key}: the model has ${ports.length} ${what}s (${list(ports)}) but ${arrays[0]!.file} is one array`,
      module
        ? `yield ${module} as an object by the model's ${what} names: { ${ports.map((p) => `${p.name}: ...`).join(', ')} }`
        : `give ${key} as a mapping of the model's ${what} names to .npy files: { ${ports.map((p) => `${p.name}: ${p.name}.npy`).join(', ')} }`,
    );
  }
  const byName = new Map(arrays.map((a) => [a.name, a]));
  for (const a of arrays) {
    if (!ports.some((p) => p.name === a.name))
      throw new DataError(
        `${at(a.name)}: the model has no ${what} '${a.name}' (${module ? `its ${what}s` : `${a.file}; its ${what}s`}: ${list(ports)})`,
        module ? `key ${module} by the names of the model's ${what} layers` : `key ${key} by the names of the model's ${what} layers`,
      );
  }
  const missing = ports.filter((p) => !byName.has(p.name));
  if (missing.length) {
    const given = module ? arrays.map((a) => a.name).join(', ') : arrays.map((a) => `${a.name}: ${a.file}`).join(', ');
    throw new DataError(
      module
        ? `${keyPath}: ${arrays[0]!.file}'s ${module} has no value for the model's ${what}${missing.length > 1 ? 's' : ''} ${list(missing)} (it has ${given}; the model's ${what}s: ${list(ports)})`
        : `${keyPath}.${key}: no file for the model's ${what}${missing.length > 1 ? 's' : ''} ${list(missing)} (given ${given}; its ${what}s: ${list(ports)})`,
      module
        ? `add ${missing.map((p) => `${p.name}: ...`).join(', ')} to every sample's ${module}`
        : `add ${missing.map((p) => `${p.name}: <file>.npy`).join(', ')}`,
    );
  }
  return ports.map((p) => byName.get(p.name)!);
}

/**
 * Several outputs: class weights (which weigh one output's classes) are refused. Eval metrics
 * and monitors apply per output (metrics/index.ts, checkMonitorsFitModel in eval-watch.ts).
 */
export function checkOutputFeatures(cfg: Config, layout: ModelLayout): void {
  if (layout.outputs.length === 1) return;
  const shape = `the model has ${layout.inputs.length} input${layout.inputs.length > 1 ? 's' : ''} and ${layout.outputs.length} outputs`;
  if (cfg.training.classWeights)
    throw new ConfigError(
      'training.classWeights',
      `is set, but ${shape}: class weights weigh one output's classes`,
      'weigh samples with sample weights (npy weights:) instead',
    );
}
