// `--set a.b.c=value` overrides, applied to the raw config before validation so an override
// is checked exactly like the file's own keys.

import { parseDocument } from 'yaml';
import { ConfigError } from '../shared/errors.ts';
import { isMapping, show } from './checker.ts';

const SET_FORM = 'write --set key.path=value, e.g. --set optimizer.learningRate=1e-3';

/** One of a pair that sets the same thing: an override of one replaces the file's other. */
const REPLACES: Record<string, string> = { 'training.steps': 'epochs', 'training.epochs': 'steps' };

/** A copy of `raw` with each `a.b.c=value` set; the value is read as YAML (`3`, `true`, `[0,1]`, `adam`). */
export function applyOverrides(raw: Record<string, unknown>, sets: string[]): Record<string, unknown> {
  const out = structuredClone(raw);
  const done = new Set<string>();
  for (const set of sets) {
    const eq = set.indexOf('=');
    const keys = eq < 0 ? [] : set.slice(0, eq).trim().split('.');
    if (keys.length === 0 || keys.some((k) => k === '')) {
      throw new ConfigError('--set', `malformed override ${JSON.stringify(set)}`, SET_FORM);
    }
    const keyPath = keys.join('.');
    const doc = parseDocument(set.slice(eq + 1));
    if (doc.errors.length > 0) {
      throw new ConfigError(keyPath, `--set ${JSON.stringify(set)}: the value is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`, SET_FORM);
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (err) {
      throw new ConfigError(keyPath, `--set ${JSON.stringify(set)}: the value is not valid YAML: ${(err as Error).message}`, SET_FORM);
    }
    let obj = out;
    keys.slice(0, -1).forEach((key, i) => {
      if (!Object.hasOwn(obj, key)) define(obj, key, {});
      const next = obj[key];
      if (!isMapping(next)) {
        throw new ConfigError(keys.slice(0, i + 1).join('.'), `--set ${JSON.stringify(set)} sets a key inside it, but it is ${show(next)}`);
      }
      obj = next;
    });
    define(obj, keys[keys.length - 1]!, value);
    // `--set training.steps=40` on a config with epochs: the run length is the override's. Both
    // given as overrides are still an error (validation names it).
    const other = REPLACES[keyPath];
    if (other !== undefined && value !== null && !done.has(`training.${other}`)) delete obj[other];
    done.add(keyPath);
  }
  return out;
}

// Plain assignment of `__proto__` would change the prototype; an own property is what validation sees and rejects.
function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
