// training.classWeights: a weight per class, by index or (with class names) by name.

import { ConfigError } from '../../shared/errors.ts';
import { fail, isMapping, real, show } from '../checker.ts';
import { hasClasses } from '../loss.ts';
import type { ClassWeights, LossEntry } from '../types.ts';

const CLASS_INDEX = /^(0|[1-9][0-9]*)$/;
const classWeight = real('a finite number >= 0', (x) => x >= 0);

/**
 * training.classWeights: { <class index>: weight } or a list by index, read as the map; when the
 * run's classes have names, { <class name>: weight } (`byName` says which split reads them and
 * how, e.g. "data.train reads class names (labelType: class)"); null when absent. Only a
 * classification loss has classes to weigh.
 */
export function classWeights(raw: unknown, path: string, loss: LossEntry, byName: string | null): ClassWeights | null {
  if (raw === undefined || raw === null) return null;
  if (byName && Array.isArray(raw)) {
    throw new ConfigError(path, `is a list, but ${byName}`, 'name the classes: e.g. { cat: 1, dog: 4 }; a class not named weighs 1');
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
    // With class names (csv labelType: class, images) a key is a name, matched to its index once
    // the classes are known (resolveClassWeights); otherwise an index, as the labels give it.
    if (!byName && !CLASS_INDEX.test(key)) {
      throw new ConfigError(
        at,
        `${show(key)} is not a class index (expected 0, 1, 2, ...)`,
        'name classes by their index, as the labels give it; class names are keys when data.train reads them (a csv labelType: class, an images source)',
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
