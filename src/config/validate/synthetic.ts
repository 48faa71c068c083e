// A synthetic data source (type: synthetic): rows made in memory, of a shape the config gives.
import { ConfigError } from '../../shared/errors.ts';
import { int, oneOf, Section } from '../checker.ts';
import { SYNTHETIC_DEFAULTS } from '../defaults.ts';
import type { DataSource } from '../types.ts';

/** The most float32 values a synthetic split holds (1 GiB): past it the count or shape is refused. */
export const SYNTHETIC_MAX_VALUES = 2 ** 28;

const shapeCheck = {
  expected: 'a non-empty list of positive integers, the shape of one sample, e.g. [32, 32, 3]',
  test: (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 1),
};

export function syntheticSource(raw: Record<string, unknown>, path: string): Extract<DataSource, { type: 'synthetic' }> {
  const s = Section.open(raw, path, ['type', 'shape', 'count', 'classes', 'labels']);
  const shape = s.req('shape', shapeCheck);
  const count = s.opt('count', int(1), SYNTHETIC_DEFAULTS.count);
  const values = count * shape.reduce((a, b) => a * b, 1);
  if (values > SYNTHETIC_MAX_VALUES) {
    throw new ConfigError(
      s.at('count'),
      `${count} samples of shape [${shape.join(', ')}] are ${values.toLocaleString('en-US')} values, more than the ${SYNTHETIC_MAX_VALUES.toLocaleString('en-US')} (1 GiB) a synthetic split holds`,
      'lower count: the rows are reused from epoch to epoch, so a few global batches time the same',
    );
  }
  const classes = s.opt('classes', int(1), SYNTHETIC_DEFAULTS.classes);
  return { type: 'synthetic', shape, count, classes, labels: s.opt('labels', oneOf(['onehot', 'index'] as const), SYNTHETIC_DEFAULTS.labels) };
}
