// model: a module that builds it, a tfjs model.json or a network by name (exactly one), and its
// custom layers. A network's options (classes, inputShape, weightDecay, dropout, width) are read
// against the table of networks (src/nets/nets-table.ts).

import { ConfigError } from '../../shared/errors.ts';
import { isNetName, NET_NAMES, NETS, type NetName } from '../../nets/nets-table.ts';
import { fraction, int, nonNegative, oneOf, orNull, positive, Section, text } from '../checker.ts';
import { namesClasses } from '../data-sources-table.ts';
import type { Config, NetConfig } from '../types.ts';

const NET_KEYS = ['classes', 'inputShape', 'weightDecay', 'dropout', 'width'] as const;
const SOURCES = ['module', 'json', 'net'] as const;

export function modelSection(raw: unknown, baseDir: string): Config['model'] {
  const m = Section.open(raw, 'model', [...SOURCES, 'customLayers', ...NET_KEYS]);
  const given = SOURCES.filter((k) => m.has(k) && m.obj[k] !== null);
  if (given.length !== 1) {
    throw new ConfigError(
      'model',
      given.length === 0
        ? 'none of model.module, model.json and model.net is set'
        : `${given.length === 2 ? 'both ' : ''}${given.map((k) => `model.${k}`).join(' and ')} are ${given.length === 2 ? '' : 'all '}set`,
      'set exactly one: module (a JS/TS module whose default export builds the model), json (a tfjs model.json) or net (a network by name: mgpu-train nets lists them)',
    );
  }
  const source = given[0]!;
  if (source !== 'net') {
    const stray = NET_KEYS.find((k) => m.has(k));
    if (stray)
      throw new ConfigError(m.at(stray), `is an option of a network by name, but the model is model.${source}`, 'remove it, or name a network with model.net');
  }
  return {
    module: source === 'module' ? m.file('module', baseDir) : null,
    json: source === 'json' ? m.file('json', baseDir) : null,
    net: source === 'net' ? netOptions(m) : null,
    customLayers: m.opt('customLayers', orNull(text), null) === null ? null : m.file('customLayers', baseDir),
  };
}

function netOptions(m: Section): NetConfig {
  const name = m.req('net', oneOf(NET_NAMES));
  const t = NETS[name];
  if (m.has('dropout') && t.dropout === null) {
    throw new ConfigError(
      m.at('dropout'),
      `${name} has no dropout in its original form`,
      `only ${withTrait((n) => NETS[n].dropout !== null)} have one; remove it`,
    );
  }
  if (m.has('width') && !t.width) {
    throw new ConfigError(m.at('width'), `${name} takes no width multiplier`, `only ${withTrait((n) => NETS[n].width)} take one; remove it`);
  }
  return {
    name,
    classes: m.opt('classes', orNull(int(2)), null),
    inputShape: inputShape(m, name),
    weightDecay: m.opt('weightDecay', nonNegative, 0),
    dropout: m.opt('dropout', orNull(fraction), null),
    width: m.opt('width', positive, 1),
  };
}

const withTrait = (has: (n: NetName) => boolean): string => NET_NAMES.filter(has).join(', ');

const shapeCheck = {
  expected: 'a list [height, width, channels] of positive integers',
  test: (v: unknown): v is [number, number, number] => Array.isArray(v) && v.length === 3 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 1),
};

function inputShape(m: Section, name: NetName): [number, number, number] {
  const t = NETS[name];
  const shape = m.opt('inputShape', shapeCheck, [...t.input] as [number, number, number]);
  const [h, w] = shape;
  if (h < t.minSide || w < t.minSide) {
    throw new ConfigError(
      m.at('inputShape'),
      `${h}x${w} is below ${name}'s smallest input, ${t.minSide}x${t.minSide}`,
      `give images of at least ${t.minSide}x${t.minSide} (its standard input is ${t.input.join('x')})${isNetName(`${name}-cifar`) ? `, or use ${name}-cifar for small images` : ''}`,
    );
  }
  return shape;
}

/**
 * A network by name with no model.classes takes the run's class count, which only data that
 * names its classes has (an image folder, a CSV of class names, data.classes): refused here
 * otherwise, before anything starts.
 */
export function checkNetClasses(model: Config['model'], data: Config['data']): void {
  const net = model.net;
  // Synthetic rows state their classes (data.train.classes, default 10): the head takes that count.
  if (!net || net.classes !== null || data.classes !== null || namesClasses(data.train) || data.train.type === 'synthetic') return;
  throw new ConfigError(
    'model.classes',
    `missing: ${net.name}'s head needs a number of classes, and data.train (type ${data.train.type}) does not name its classes`,
    `set model.classes to the number of classes (e.g. classes: ${NETS[net.name].standardClasses}); it defaults to the class count of data that names its classes (an image folder, a CSV with labelType: class, data.classes)`,
  );
}

/**
 * A network by name without model.inputShape takes the image source's [height, width,
 * channels] (data.train's size and channels) rather than its standard input, which such data
 * could never fill; a size below the network's smallest is refused at data.train.size.
 */
export function netInputFromData(model: Config['model'], data: Config['data'], rawModel: unknown): void {
  const net = model.net;
  if (!net || (rawModel as Record<string, unknown> | null)?.['inputShape'] !== undefined) return;
  const src = data.train as { size?: unknown; channels?: unknown };
  if (!Array.isArray(src.size) || src.size.length !== 2 || (src.channels !== 1 && src.channels !== 3)) return;
  const [h, w] = src.size as [number, number];
  const t = NETS[net.name];
  if (h < t.minSide || w < t.minSide) {
    throw new ConfigError(
      'data.train.size',
      `${h}x${w} is below ${net.name}'s smallest input, ${t.minSide}x${t.minSide}`,
      `give images of at least ${t.minSide}x${t.minSide}, or set model.inputShape`,
    );
  }
  net.inputShape = [h, w, src.channels];
}
