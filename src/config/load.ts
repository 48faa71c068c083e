// Reads an experiment config file (YAML or JSON), applies --set overrides and validates it;
// serializeConfig writes the resolved config back out for the run directory.

import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { ConfigError } from '../shared/errors.ts';
import { OPTIMIZER_PARAMS, SCHEDULE_PARAMS } from './defaults.ts';
import { findDuplicateJsonKey } from './json-duplicate-keys.ts';
import { applyOverrides } from './overrides.ts';
import type { Config, NetConfig } from './types.ts';
import { NETS } from '../nets/nets-table.ts';
import { isMapping, show } from './checker.ts';
import { validateConfig } from './validate.ts';

const EXTENSIONS = ['.yaml', '.yml', '.json'];
/** A config is a page of keys; a file over this is refused before it is parsed (a huge one took minutes). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export async function loadConfig(path: string, sets: string[] = [], cwd = process.cwd()): Promise<Config> {
  const file = resolve(cwd, path);
  const info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    throw new ConfigError('', `config file ${file} is a directory`, `name the experiment file (${EXTENSIONS.join(', ')}) inside it`);
  }
  if (info && info.size > MAX_CONFIG_BYTES) {
    throw new ConfigError(
      '',
      `config file ${file} is ${info.size} bytes (${(info.size / 2 ** 20).toFixed(1)} MiB), over the ${MAX_CONFIG_BYTES / 2 ** 20} MiB a config may be`,
      'a config holds settings, not data: name data files under data: instead',
    );
  }
  const ext = extname(file).toLowerCase();
  if (!EXTENSIONS.includes(ext)) {
    throw new ConfigError('', `config file ${file}: unsupported extension ${JSON.stringify(ext)}`, `use one of ${EXTENSIONS.join(', ')}`);
  }
  let source: string;
  try {
    // A byte-order mark from some Windows editors is not part of the document.
    source = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError('', code === 'ENOENT' ? `config file not found: ${file}` : `cannot read config file ${file}: ${(err as Error).message}`);
  }
  const raw = ext === '.json' ? parseJson(file, source) : parseYaml(file, source);
  if (!isMapping(raw)) {
    throw new ConfigError('', `config file ${file}: expected a mapping of config keys at the top, got ${show(raw)}`);
  }
  return validateConfig(applyOverrides(raw, sets), { configPath: file, cwd });
}

function parseYaml(file: string, source: string): unknown {
  // merge: `<<: *base` copies the keys of an anchored mapping (YAML 1.1's merge key).
  const doc = parseDocument(source, { merge: true });
  const err = doc.errors[0];
  if (err) {
    const at = err.linePos?.[0];
    if (err.code === 'MULTIPLE_DOCS') {
      throw new ConfigError(
        '',
        `${file}${at ? `:${at.line}` : ''}: a second YAML document starts here (a line \`---\` after the first document); a config file is one document`,
        'remove that line and what follows it, or put each experiment in a file of its own',
      );
    }
    // The message is "<what> at line L, column C:\n\n<source excerpt with a caret>".
    const [what, excerpt = ''] = err.message.split(/ at line \d+, column \d+:\n/);
    throw new ConfigError('', `${file}${at ? `:${at.line}:${at.col}` : ''}: YAML syntax error: ${what}${excerpt.trimEnd() ? `\n${excerpt.trimEnd()}` : ''}`);
  }
  try {
    return doc.toJS();
  } catch (err) {
    // Some YAML errors surface only here: an alias before its anchor, too many aliases.
    throw new ConfigError('', `${file}: YAML error: ${(err as Error).message}`);
  }
}

function parseJson(file: string, source: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    const message = (err as Error).message;
    const before = source.slice(0, jsonErrorOffset(source, message)).split('\n');
    throw new ConfigError('', `${file}:${before.length}:${before[before.length - 1]!.length + 1}: JSON syntax error: ${message}`);
  }
  const dup = findDuplicateJsonKey(source);
  if (dup) {
    throw new ConfigError(
      dup.keyPath,
      `${file}:${dup.line}: this key is given twice (first on line ${dup.firstLine})`,
      'keep one of the two: JSON would silently keep the last',
    );
  }
  return value;
}

/**
 * V8 names the offset of some JSON errors but not of others ("Unexpected token"); then it is found
 * as the end of the shortest prefix that fails before running out of input.
 */
function jsonErrorOffset(source: string, message: string): number {
  const position = (m: string) => /at position (\d+)/.exec(m)?.[1];
  if (position(message) !== undefined) return Number(position(message));
  if (/end of JSON input/.test(message)) return source.length;
  const failsWithin = (n: number) => {
    try {
      JSON.parse(source.slice(0, n));
      return false;
    } catch (e) {
      const m = (e as Error).message;
      return !/end of JSON input/.test(m) && Number(position(m) ?? -1) < n;
    }
  };
  let [lo, hi] = [0, source.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsWithin(mid)) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(0, lo - 1);
}

/**
 * The resolved config as a raw config object that validates back to the same Config: every
 * section with every key, except the optimizer and schedule keys the chosen name does not read
 * (validation rejects those) and the model key that is not set. Sections without such rules are
 * copied whole, so a key added to them later is written without a change here.
 */
/** model.net's keys as written: dropout and width only for a network that reads them (validation refuses them elsewhere). */
function netToRaw(n: NetConfig): Record<string, unknown> {
  const t = NETS[n.name];
  return {
    net: n.name,
    classes: n.classes,
    inputShape: [...n.inputShape],
    weightDecay: n.weightDecay,
    ...(t.dropout !== null ? { dropout: n.dropout } : {}),
    ...(t.width ? { width: n.width } : {}),
  };
}

export function configToRaw(c: Config): Record<string, unknown> {
  const pick = <T extends object>(obj: T, keys: readonly (keyof T)[]) => Object.fromEntries(keys.map((k) => [k, obj[k]]));
  const { model, optimizer, schedule } = c;
  const raw: Record<string, unknown> = {
    name: c.name,
    model: {
      ...(model.module !== null ? { module: model.module } : model.json !== null ? { json: model.json } : netToRaw(model.net!)),
      ...(model.customLayers ? { customLayers: model.customLayers } : {}),
    },
    loss: c.loss,
    lossWeights: c.lossWeights,
    data: { ...c.data },
    training: { ...c.training },
    optimizer: pick(optimizer, ['name', ...OPTIMIZER_PARAMS[optimizer.name]]),
    schedule: pick(schedule, ['name', ...SCHEDULE_PARAMS[schedule.name]]),
    devices: { ...c.devices },
    log: { ...c.log },
    eval: { ...c.eval },
    checkpoint: { ...c.checkpoint },
    reliability: { ...c.reliability },
    // The form the file takes: a bare name unless it has an average or is a module.
    metrics:
      c.metrics === null
        ? null
        : c.metrics.map((m) => ('module' in m ? { module: m.module, name: m.name } : m.average ? { name: m.name, average: m.average } : m.name)),
    runDir: c.runDir,
  };
  // A Config read back from an older checkpoint may lack a key added since: leave it to its default.
  return structuredClone(dropUndefined(raw)) as Record<string, unknown>;
}

function dropUndefined(v: unknown): unknown {
  if (!isMapping(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => [k, dropUndefined(x)]),
  );
}

/** The resolved config as YAML (runs/<name>/config.yaml); see configToRaw. */
export function serializeConfig(c: Config): string {
  const header = c.configPath === null ? '' : `# resolved from ${c.configPath}\n`;
  return header + stringify(configToRaw(c));
}
