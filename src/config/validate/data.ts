// data: the training and eval sources (npy, csv, a module, mnist, synthetic, images, tfrecord, webdataset),
// evalFraction and the class list. Each source type's check is SOURCE_CHECKS's entry, keyed by
// the source table's types (src/config/data-sources-table.ts).

import { ConfigError } from '../../shared/errors.ts';
import { fail, failCheck, int, isMapping, oneOf, orNull, quotedChoices, real, Section, show, text } from '../checker.ts';
import { DATA_MODULE_DEFAULTS, MNIST_DEFAULTS, MNIST_SIZE } from '../defaults.ts';
import { imageSource } from './images.ts';
import { checkOnBadSample } from './on-bad-sample.ts';
import { syntheticSource } from './synthetic.ts';
import { tfrecordSource } from './tfrecord.ts';
import { webdatasetSource } from './webdataset.ts';
import { CSV_LABEL_TYPES, type Config, type DataSource, type NpyFiles } from '../types.ts';
import { SOURCE_TYPES, type SourceType } from '../data-sources-table.ts';

type SourceOf<T extends SourceType> = Extract<DataSource, { type: T }>;
type SourceCheck<T extends SourceType> = (raw: Record<string, unknown>, path: string, baseDir: string) => SourceOf<T>;
/** The types as messages list them: 'npy', 'csv', ... or 'images'. */
const TYPE_LIST = quotedChoices(SOURCE_TYPES);

export function dataSection(raw: unknown, baseDir: string): Config['data'] {
  const d = Section.open(raw, 'data', ['train', 'eval', 'evalFraction', 'classes', 'threads', 'prefetch', 'onBadSample']);
  if (!d.has('train')) throw new ConfigError(d.at('train'), `missing; expected a data source (type ${TYPE_LIST})`);
  noEvalAugment(d.obj.eval);
  const data = {
    train: dataSource(d.obj.train, d.at('train'), baseDir),
    eval: d.has('eval') && d.obj.eval !== null ? dataSource(d.obj.eval, d.at('eval'), baseDir) : null,
    evalFraction: d.opt('evalFraction', orNull(real('a number in (0, 1)', (x) => x > 0 && x < 1)), null),
    classes: classList(d),
    threads: d.opt('threads', orNull(int(1)), null),
    prefetch: d.opt('prefetch', int(1), 2),
    onBadSample: d.opt('onBadSample', oneOf(['error', 'skip'] as const), 'error'),
  };
  if (data.eval !== null && data.evalFraction !== null) {
    throw new ConfigError('data.evalFraction', 'is set, but so is data.eval', 'hold out a fraction of train, or give an eval set: not both');
  }
  checkOnBadSample(data);
  return data;
}

/** data.eval.augment is refused, not ignored: an evaluation reads its images as they are. */
function noEvalAugment(raw: unknown): void {
  if (!isMapping(raw) || !['images', 'tfrecord', 'webdataset'].includes(raw.type as string) || !Object.hasOwn(raw, 'augment') || raw.augment === null) return;
  throw new ConfigError(
    'data.eval.augment',
    'is set, but data.eval is never augmented: an evaluation reads its images as they are',
    'remove data.eval.augment; augmentation is for training: put it under data.train.augment',
  );
}

/** Whether there is eval data: an eval set, or a fraction of train held out. */
export function hasEvalData(data: Config['data']): boolean {
  return data.eval !== null || data.evalFraction !== null;
}

const SOURCE_CHECKS: { [T in SourceType]: SourceCheck<T> } = {
  npy: npySource,
  csv: csvSource,
  module: moduleSource,
  mnist: mnistSource,
  images: imageSource,
  synthetic: (raw, path) => {
    noSampleWeights(raw, path);
    return syntheticSource(raw, path);
  },
  tfrecord: tfrecordSource,
  webdataset: webdatasetSource,
};

function dataSource(raw: unknown, path: string, baseDir: string): DataSource {
  if (!isMapping(raw)) fail(path, `a mapping with a type (${TYPE_LIST})`, raw);
  const types = oneOf(SOURCE_TYPES);
  const type = raw.type;
  if (!types.test(type)) failCheck(`${path}.type`, types, type);
  return SOURCE_CHECKS[type](raw, path, baseDir);
}

/** A source that takes no sample weights: a weights key (npy's) or weight key (csv's) on it is refused. */
function noSampleWeights(raw: Record<string, unknown>, path: string): void {
  if (!Object.hasOwn(raw, 'weights') && !Object.hasOwn(raw, 'weight')) return;
  const key = Object.hasOwn(raw, 'weights') ? 'weights' : 'weight';
  throw new ConfigError(
    `${path}.${key}`,
    `sample weights are not read from a '${String(raw.type)}' source`,
    'give them with an npy source (weights: w.npy) or a csv source (weight: <column>)',
  );
}

function moduleSource(raw: Record<string, unknown>, path: string, baseDir: string): SourceOf<'module'> {
  noSampleWeights(raw, path);
  const s = Section.open(raw, path, ['type', 'module', 'maxSamples']);
  return { type: 'module', module: s.file('module', baseDir), maxSamples: s.opt('maxSamples', int(1), DATA_MODULE_DEFAULTS.maxSamples) };
}

function npySource(raw: Record<string, unknown>, path: string, baseDir: string): SourceOf<'npy'> {
  const s = Section.open(raw, path, ['type', 'features', 'labels', 'weights']);
  const weights = s.has('weights') && s.obj.weights !== null ? s.file('weights', baseDir) : null;
  return { type: 'npy', features: npyFiles(s, 'features', baseDir), labels: npyFiles(s, 'labels', baseDir), weights };
}

function csvSource(raw: Record<string, unknown>, path: string, baseDir: string): SourceOf<'csv'> {
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
  return { type: 'csv', path: s.file('path', baseDir), label, labelType: s.opt('labelType', labelTypes, 'index'), weight };
}

function mnistSource(raw: Record<string, unknown>, path: string): SourceOf<'mnist'> {
  noSampleWeights(raw, path);
  const s = Section.open(raw, path, ['type', 'offset', 'count', 'labels']);
  const offset = s.opt('offset', int(0, MNIST_SIZE - 1), MNIST_DEFAULTS.offset);
  const count = s.opt('count', int(1), MNIST_SIZE - offset);
  if (offset + count > MNIST_SIZE) {
    throw new ConfigError(s.at('count'), `offset ${offset} + count ${count} is past the ${MNIST_SIZE} mnist digits`, `use count <= ${MNIST_SIZE - offset}`);
  }
  return { type: 'mnist', offset, count, labels: s.opt('labels', oneOf(['onehot', 'index'] as const), MNIST_DEFAULTS.labels) };
}

/**
 * npy features or labels: one file, or a mapping of the model's input (output) names to files,
 * for a model with several; which names the model has is checked once it is built.
 */
function npyFiles(s: Section, key: 'features' | 'labels', baseDir: string): NpyFiles {
  const v = s.obj[key];
  if (!isMapping(v)) return s.fileOrPattern(key, baseDir);
  const names = Object.keys(v);
  const what = key === 'features' ? 'input' : 'output';
  if (names.length === 0) fail(s.at(key), `a file, or a mapping of the model's ${what} names to files`, v);
  const out: Record<string, string> = {};
  for (const name of names) out[name] = Section.open(v, s.at(key), names).fileOrPattern(name, baseDir);
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
