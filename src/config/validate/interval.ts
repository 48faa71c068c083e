// An interval of eval.every and checkpoint.every.

import { fail, int, isMapping, Section } from '../checker.ts';
import type { Every } from '../types.ts';

/**
 * An interval: a step count (0: never in the middle of the run), `epoch`, or `{ epochs: k }`;
 * `epoch` resolves to `{ epochs: 1 }`, so the resolved config always has one of two shapes.
 */
export function interval(s: Section, key: string, fallback: Every): Every {
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
