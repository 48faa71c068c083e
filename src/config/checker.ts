// The generic half of config validation: a Section is one mapping of the config at a key path,
// and reading a key checks it against a Check (what it expects, and a test). Any problem is a
// ConfigError naming the key path; an unknown key suggests the nearest known one. The schema of
// mgpu-train's config, which uses these, is validate.ts (each section in validate/).

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../shared/errors.ts';
import { isPattern, matchFiles } from '../shared/file-pattern.ts';

type Mapping = Record<string, unknown>;

export function isMapping(v: unknown): v is Mapping {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function stringify(v: unknown): string | undefined {
  return JSON.stringify(v);
}

/** A value as an error message shows it: `"64" (string)`, `[0, 1] (list)`. */
export function show(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Object.create(null) has no constructor
  const kind = Array.isArray(v) ? 'list' : isMapping(v) ? 'mapping' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v;
  let text: string;
  try {
    // JSON.stringify gives undefined for a function or a symbol (its declaration says string).
    const json = typeof v === 'number' ? String(v) : stringify(v);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only a function or a symbol gets here
    text = json ?? String(v);
  } catch {
    text = Array.isArray(v) ? '[...]' : '{...}'; // it contains itself (a YAML anchor used inside itself)
  }
  if (text.length > 60) text = `${text.slice(0, 57)}...`;
  return `${text} (${kind})`;
}

export interface Check<T> {
  expected: string;
  test(v: unknown): v is T;
  /** A hint for a value that fails the test (a near miss of a name: "did you mean 'images'?"). */
  hint?: (v: unknown) => string | undefined;
}

export const int = (min: number, max = Number.MAX_SAFE_INTEGER): Check<number> => ({
  expected: max !== Number.MAX_SAFE_INTEGER ? `an integer in [${min}, ${max}]` : min === 1 ? 'a positive integer' : `an integer >= ${min}`,
  test: (v): v is number => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max,
});
export const real = (expected: string, inRange: (x: number) => boolean): Check<number> => ({
  expected,
  test: (v): v is number => typeof v === 'number' && Number.isFinite(v) && inRange(v),
});
export const positive = real('a finite number > 0', (x) => x > 0);
export const nonNegative = real('a finite number >= 0', (x) => x >= 0);
export const fraction = real('a number in [0, 1)', (x) => x >= 0 && x < 1);
export const bool: Check<boolean> = { expected: 'true or false', test: (v): v is boolean => typeof v === 'boolean' };
export const text: Check<string> = { expected: 'a non-empty string', test: (v): v is string => typeof v === 'string' && v !== '' };
/** Names quoted, as a message lists the choices: `'a', 'b' or 'c'`. */
export const quotedChoices = (values: readonly string[]): string =>
  values.length < 2
    ? values.map((v) => `'${v}'`).join('')
    : `${values
        .slice(0, -1)
        .map((v) => `'${v}'`)
        .join(', ')} or '${values.at(-1)}'`;
export const oneOf = <T extends string>(values: readonly T[]): Check<T> => ({
  expected: `one of ${values.map((v) => `'${v}'`).join(', ')}`,
  test: (v): v is T => values.includes(v as T),
  hint: (v) => {
    const near = typeof v === 'string' ? closest(v, values) : undefined;
    return near === undefined ? undefined : `did you mean '${near}'?`;
  },
});
export const orNull = <T>(c: Check<T>): Check<T | null> => ({
  expected: `${c.expected} or null`,
  test: (v): v is T | null => v === null || c.test(v),
  hint: c.hint,
});

export function fail(keyPath: string, expected: string, got: unknown, hint?: string): never {
  throw new ConfigError(keyPath, `expected ${expected}, got ${show(got)}`, hint);
}

/** A value `check` refused: what it expects, and its hint for the value (a near choice). */
export function failCheck(keyPath: string, check: Check<unknown>, got: unknown): never {
  fail(keyPath, check.expected, got, check.hint?.(got));
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

export function closest(key: string, known: readonly string[]): string | undefined {
  const scored = known.map((k) => ({ k, d: editDistance(key.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.k : undefined;
}

/** One mapping of the config at a key path; reading a key checks it against its Check. */
export class Section {
  private constructor(
    readonly path: string,
    readonly obj: Mapping,
  ) {}

  static open(raw: unknown, path: string, known: readonly string[]): Section {
    if (raw === undefined) return new Section(path, {});
    if (!isMapping(raw)) {
      if (!path) throw new ConfigError('', `the config's top level: expected a mapping, got ${show(raw)}`);
      fail(path, 'a mapping', raw);
    }
    for (const key of Object.keys(raw)) {
      if (known.includes(key)) continue;
      const near = closest(key, known);
      const list = `known keys${path ? ` of ${path}` : ''}: ${known.join(', ')}`;
      throw new ConfigError(Section.join(path, key === '' ? '""' : key), 'unknown key', near ? `did you mean '${near}'? ${list}` : list);
    }
    return new Section(path, raw);
  }

  static join(path: string, key: string): string {
    return path ? `${path}.${key}` : key;
  }

  at(key: string): string {
    return Section.join(this.path, key);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.obj, key);
  }

  req<T>(key: string, check: Check<T>): T {
    if (!this.has(key)) throw new ConfigError(this.at(key), `missing; expected ${check.expected}`);
    return this.opt(key, check, undefined as T);
  }

  opt<T>(key: string, check: Check<T>, fallback: T): T {
    if (!this.has(key)) return fallback;
    const v = this.obj[key];
    if (!check.test(v)) failCheck(this.at(key), check, v);
    return v;
  }

  /** An absolute path of an existing file, relative ones taken from `baseDir`. */
  file(key: string, baseDir: string): string {
    const p = resolve(baseDir, this.req(key, text));
    if (!existsSync(p)) throw new ConfigError(this.at(key), `file not found: ${p}`, `relative paths are resolved against ${baseDir}`);
    return p;
  }

  /** A file, or a pattern (`./x-*.npy`: * and ? in the file name) that matches at least one. */
  fileOrPattern(key: string, baseDir: string): string {
    const p = resolve(baseDir, this.req(key, text));
    if (!isPattern(p)) return this.file(key, baseDir);
    try {
      matchFiles(p, this.at(key));
    } catch (err) {
      throw new ConfigError(
        this.at(key),
        (err as Error).message.replace(`${this.at(key)}: `, ''),
        `relative paths are resolved against ${baseDir}; * matches any run of characters in the file name, ? one`,
      );
    }
    return p;
  }

  /** Rejects keys that `name` does not read, saying which names do. */
  rejectUnread<N extends string>(name: N, reads: Record<N, readonly string[]>): void {
    for (const key of Object.keys(this.obj)) {
      if (key === 'name' || reads[name].includes(key)) continue;
      const readers = (Object.keys(reads) as N[]).filter((n) => reads[n].includes(key));
      throw new ConfigError(this.at(key), `is not used by ${this.path} '${name}'`, `only ${readers.join(', ')} use it; remove it or change ${this.at('name')}`);
    }
  }
}
