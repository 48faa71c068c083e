// Seeded fuzzing of the config's edge: whatever a user writes, validateConfig and loadConfig
// return a Config or throw a ConfigError (code E_CONFIG, naming a key path), never anything else.
//   validateConfig  random mutations of a valid config object: keys deleted, added, renamed;
//                   values of every type YAML can produce (Date, Map, Set, bytes from YAML 1.1,
//                   self-referencing ones from anchors), huge numbers, long strings, deep nesting
//   loadConfig      random and truncated YAML/JSON text, mutated documents, and a few known
//                   nasties (alias bombs, unresolved aliases, multi-document files)
//   --set           random overrides of a valid file
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/types.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { ConfigError } from '../../src/shared/errors.ts';
import { mulberry32, type Rng } from '../../src/shared/rng.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-config-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.mjs', 'x.npy', 'y.npy', 'ex.npy', 'ey.npy', 'data.csv', 'samples.mjs', 'model.json']) fs.writeFileSync(path.join(dir, f), '');

const TOP_KEYS = [
  'name',
  'model',
  'loss',
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
  'configPath',
];

/** A valid config touching every section (files exist, relative to `dir`). */
function validRaw(): Record<string, unknown> {
  return {
    name: 'fuzz',
    model: { module: './model.mjs' },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' }, eval: { type: 'npy', features: './ex.npy', labels: './ey.npy' } },
    training: { batchSize: 32, epochs: 2, dropLast: false, seed: 1, accumulateSteps: 2, clipNorm: 1.5, ema: 0.99 },
    optimizer: { name: 'adam', learningRate: 0.001, beta1: 0.9, beta2: 0.999, epsilon: 1e-7 },
    schedule: { name: 'cosine', decaySteps: 100, alpha: 0.1, warmupSteps: 5 },
    devices: { gpus: [0, 1], backend: 'auto', shmDir: '/dev/shm' },
    log: { every: 5 },
    eval: { every: 10, batchSize: 64, topK: 3, useEma: true },
    metrics: ['accuracy', { name: 'f1', average: 'micro' }, 'auc', { module: './samples.mjs', name: 'mine' }],
    checkpoint: { every: 20, keep: 2 },
    reliability: { onWorkerFailure: 'reshard', maxRestarts: 2, stepTimeout: 300, startTimeout: 900, stallFactor: 4, stallMinSeconds: 2, onNonFinite: 'skip' },
    runDir: 'runs/fuzz',
  };
}
// Other shapes of data sources, swapped in now and then.
const SOURCES = [
  { type: 'csv', path: './data.csv', label: 'y', labelType: 'float' },
  { type: 'csv', path: './data.csv', label: 'y', labelType: 'class' },
  { type: 'module', module: './samples.mjs' },
  { type: 'mnist', offset: 100, count: 500, labels: 'onehot' },
];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.below(xs.length)]!;

function randomString(rng: Rng): string {
  const alphabets = ['abcxyz', 'ABC_-.', '0123456789', ' \t\n', '{}[]:,&*!|>#%@`\'"', 'éß中文🙂\u0000\u200b\ufeff', '../'];
  const len = pick(rng, [0, 1, 3, 8, 20, 300]);
  let s = '';
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points on purpose: the emoji stays whole
  for (let i = 0; i < len; i++) s += pick(rng, [...pick(rng, alphabets)]);
  return s;
}

function randomValue(rng: Rng, depth = 0): unknown {
  switch (rng.below(depth > 3 ? 14 : 19)) {
    case 0:
      return null;
    case 1:
      return undefined;
    case 2:
      return rng.below(2) === 0;
    case 3:
      return pick(rng, [0, -0, 1, -1, 2, 7, 0.5, -0.5, 1e-7, 3.7]);
    case 4:
      return pick(rng, [1e308, -1e308, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 64, 1e21, Number.MIN_VALUE, 2 ** 32 + 1]);
    case 5:
      return pick(rng, [Infinity, -Infinity, NaN]);
    case 6:
      return rng.uint32() - 2 ** 31;
    case 7:
      return rng.float() * 10 ** (rng.below(40) - 20);
    case 8:
      return randomString(rng);
    case 9:
      return pick(rng, [
        'all',
        'restart',
        'reshard',
        'abort',
        'stop',
        'skip',
        'adam',
        'sgd',
        'npy',
        'mnist',
        'cosine',
        'cpu',
        'auto',
        './model.mjs',
        './x.npy',
        '/nonexistent',
        '~',
        '.',
        '..',
        '__proto__',
        'true',
        '1e3',
        '0x10',
      ]);
    case 10:
      return new Date(rng.uint32() * 1000);
    case 11:
      return Uint8Array.from({ length: rng.below(5) }, () => rng.below(256));
    case 12:
      return new Map([['batchSize', 3]]);
    case 13:
      return new Set([1, 2]);
    case 14:
      return Array.from({ length: rng.below(4) }, () => randomValue(rng, depth + 1));
    case 15: {
      const o: Record<string, unknown> = {};
      for (let i = rng.below(4); i > 0; i--) o[pick(rng, [randomString(rng), pick(rng, TOP_KEYS), 'type', 'name', 'every'])] = randomValue(rng, depth + 1);
      return o;
    }
    case 16: {
      // A mapping with no prototype (what some YAML/JSON tools build)
      const o = Object.create(null) as Record<string, unknown>;
      o.every = randomValue(rng, depth + 1);
      return o;
    }
    case 17: {
      // Deep nesting
      let v: unknown = randomValue(rng, 4);
      for (let i = 0; i < 50 + rng.below(200); i++) v = rng.below(2) ? [v] : { a: v };
      return v;
    }
    default: {
      // A value that contains itself (YAML: `&a [*a]` or `&a { k: *a }`)
      if (rng.below(2)) {
        const a: unknown[] = [1];
        a.push(a);
        return a;
      }
      const o: Record<string, unknown> = { every: 1 };
      o.self = o;
      return o;
    }
  }
}

type Path = (string | number)[];

/** Every path to a value inside `v` (mappings and lists), the root excluded. */
function paths(v: unknown, at: Path = [], out: Path[] = [], seen = new Set<unknown>()): Path[] {
  // A typed array (YAML 1.1 binary) is a value, not a container: its indices cannot be deleted.
  if (typeof v !== 'object' || v === null || seen.has(v) || ArrayBuffer.isView(v)) return out;
  seen.add(v);
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
  for (const [k, x] of entries) {
    out.push([...at, k]);
    paths(x, [...at, k], out, seen);
  }
  return out;
}

function parentOf(root: Record<string, unknown>, p: Path): Record<string | number, unknown> {
  let o = root as Record<string | number, unknown>;
  for (const k of p.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  return o;
}

function setOwn(o: Record<string | number, unknown>, k: string | number, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function mutate(rng: Rng, raw: Record<string, unknown>): string[] {
  const done: string[] = [];
  for (let m = 1 + rng.below(3); m > 0; m--) {
    const all = paths(raw);
    const p = all.length ? pick(rng, all) : ['loss'];
    const parent = parentOf(raw, p);
    const key = p[p.length - 1]!;
    const name = p.join('.');
    switch (rng.below(7)) {
      case 0:
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key];
        done.push(`delete ${name}`);
        break;
      case 1:
      case 2:
        setOwn(parent, key, randomValue(rng));
        done.push(`set ${name}`);
        break;
      case 3: {
        // A new key: random, a known key in the wrong section, or one Object.prototype has.
        const target = typeof parent[key] === 'object' && parent[key] !== null && !Array.isArray(parent[key]) ? (parent[key] as Record<string, unknown>) : raw;
        const k = pick(rng, [randomString(rng), pick(rng, TOP_KEYS), 'batchSize', 'type', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']);
        setOwn(target, k, randomValue(rng));
        done.push(`add ${JSON.stringify(k)} under ${target === raw ? '(top)' : name}`);
        break;
      }
      case 4: {
        if (Array.isArray(parent)) break;
        const v = parent[key];
        delete parent[key];
        const renamed = pick(rng, [String(key).toLowerCase(), `${String(key)}s`, String(key).slice(1), String(key).toUpperCase(), ` ${String(key)}`]);
        setOwn(parent, renamed, v);
        done.push(`rename ${name} -> ${renamed}`);
        break;
      }
      case 5:
        setOwn(parent, key, rng.below(2) ? [parent[key]] : { value: parent[key] });
        done.push(`wrap ${name}`);
        break;
      default:
        if (p[0] === 'data' && p.length === 2) {
          setOwn(parent, key, structuredClone(pick(rng, SOURCES)));
          done.push(`source ${name}`);
        } else {
          setOwn(parent, key, typeof parent[key] === 'number' ? String(parent[key]) : typeof parent[key] === 'string' ? Number(parent[key]) : null);
          done.push(`retype ${name}`);
        }
    }
  }
  return done;
}

/** What an accepted config must look like. */
function checkConfig(c: Config, what: string): void {
  assert.ok(Number.isSafeInteger(c.training.batchSize) && c.training.batchSize >= 1, `${what}: batchSize ${c.training.batchSize}`);
  assert.ok(['restart', 'reshard', 'abort'].includes(c.reliability.onWorkerFailure), `${what}: onWorkerFailure`);
  assert.ok(Number.isSafeInteger(c.reliability.maxRestarts) && c.reliability.maxRestarts >= 0, `${what}: maxRestarts`);
  for (const k of ['stepTimeout', 'stallMinSeconds'] as const)
    assert.ok(Number.isFinite(c.reliability[k]) && c.reliability[k] > 0, `${what}: reliability.${k}`);
  assert.ok(Number.isFinite(c.reliability.stallFactor) && c.reliability.stallFactor >= 0, `${what}: stallFactor`);
  const start = c.reliability.startTimeout;
  assert.ok(start === null || (Number.isFinite(start) && start > 0), `${what}: reliability.startTimeout`);
  assert.ok(['stop', 'skip'].includes(c.reliability.onNonFinite), `${what}: onNonFinite`);
  for (const every of [c.checkpoint.every, c.eval.every]) {
    const k = typeof every === 'number' ? every : every.epochs;
    assert.ok(Number.isSafeInteger(k) && k >= (typeof every === 'number' ? 0 : 1), `${what}: an interval ${JSON.stringify(every)}`);
  }
  assert.ok(Number.isSafeInteger(c.checkpoint.keep) && c.checkpoint.keep >= 1, `${what}: checkpoint`);
  assert.ok(Number.isFinite(c.optimizer.learningRate) && c.optimizer.learningRate > 0, `${what}: learningRate`);
  assert.ok((c.model.module === null) !== (c.model.json === null), `${what}: model`);
  assert.equal(typeof c.runDir, 'string');
  assert.ok(path.isAbsolute(c.devices.shmDir), `${what}: shmDir`);
  const cls = c.data.classes;
  assert.ok(
    cls === null || (cls.length > 0 && cls.every((n) => typeof n === 'string' && n !== '') && new Set(cls).size === cls.length),
    `${what}: data.classes`,
  );
}

const describeValue = (v: unknown) => {
  try {
    return (JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)) as string | undefined)?.slice(0, 2000); // undefined for a function
  } catch {
    return String(v);
  }
};

test('validateConfig: seeded mutations of a valid config give a Config or a ConfigError with a key path', () => {
  const rng = mulberry32(0xc0f19);
  const counts = { ok: 0, rejected: 0 };
  const keyPaths = new Set<string>();
  assert.doesNotThrow(() => validateConfig(validRaw(), { configPath: path.join(dir, 'fuzz.yaml'), cwd: dir }), 'the base config is valid');
  for (let i = 0; i < 3000; i++) {
    const raw = validRaw();
    const did = mutate(rng, raw);
    const what = `mutation #${i} (${did.join('; ')})`;
    let c: Config;
    try {
      c = validateConfig(raw, { configPath: rng.below(2) ? path.join(dir, 'fuzz.yaml') : null, cwd: dir });
    } catch (err) {
      if (!(err instanceof ConfigError)) assert.fail(`${what}: threw ${err instanceof Error ? err.stack : String(err)}\nconfig: ${describeValue(raw)}`);
      assert.equal(err.code, 'E_CONFIG', what);
      assert.equal(err.exitCode, 2, what);
      assert.ok(err.keyPath !== '', `${what}: a ConfigError without a key path: ${err.message}`);
      assert.ok(err.message.startsWith(`${err.keyPath}: `), `${what}: the message does not start with its key path: ${err.message}`);
      // It starts with a key the config has or must have (the empty key is shown quoted).
      const starts = [...TOP_KEYS, ...Object.keys(raw).map((k) => (k === '' ? '""' : k))];
      assert.ok(
        starts.some((k) => err.keyPath === k || err.keyPath.startsWith(`${k}.`) || err.keyPath.startsWith(`${k}[`)),
        `${what}: key path ${err.keyPath} names no key of the config`,
      );
      keyPaths.add(err.keyPath.replace(/\[\d+\]/g, '[]'));
      counts.rejected++;
      continue;
    }
    checkConfig(c, what);
    counts.ok++;
  }
  // Both outcomes must be exercised, over many different key paths.
  assert.ok(counts.ok > 100 && counts.rejected > 1500 && keyPaths.size > 40, `${JSON.stringify(counts)}, ${keyPaths.size} key paths`);
});

// ---- loadConfig -----------------------------------------------------------------------------

const BASE_YAML = `# a valid experiment
name: fuzz
model: { module: ./model.mjs }
loss: sparseCategoricalCrossentropy
data:
  train: &src
    type: mnist
    count: 500
    labels: index
  eval: *src
training:
  batchSize: 32
  steps: 100
optimizer: { name: momentum, learningRate: 0.01, nesterov: true }
schedule:
  name: exponential
  decaySteps: 10
reliability:
  onWorkerFailure: restart
  maxRestarts: 3
  stallFactor: 5
  stallMinSeconds: 1
checkpoint: { every: 10, keep: 1 }
devices:
  gpus: [0]
  shmDir: "/dev/shm"
log: { every: 1 }
`;

const NASTY: Record<string, string> = {
  'alias bomb': `a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
  'unresolved alias': 'training: *nope\n',
  'alias before anchor': 'training: *t\nlog: &t { every: 1 }\n',
  'self-referencing mapping': BASE_YAML.replace('training:\n  batchSize: 32\n  steps: 100\n', 'training: &t\n  batchSize: *t\n'),
  'self-referencing list': BASE_YAML.replace('gpus: [0]', 'gpus: &g [*g]'),
  'yaml 1.1 set': `%YAML 1.1\n---\n${BASE_YAML.replace('log: { every: 1 }', 'log: !!set { every }')}`,
  'yaml 1.1 binary': `%YAML 1.1\n---\n${BASE_YAML.replace('batchSize: 32', 'batchSize: !!binary aGVsbG8=')}`,
  'yaml 1.1 timestamp': `%YAML 1.1\n---\n${BASE_YAML.replace('steps: 100', 'steps: 2001-12-14')}`,
  'unknown tag': BASE_YAML.replace('batchSize: 32', 'batchSize: !!python/object 32'),
  'two documents': `${BASE_YAML}---\nname: second\n`,
  empty: '',
  'only a comment': '# nothing\n',
  'a scalar': '42\n',
  'a list': '- a\n- b\n',
  'null document': '~\n',
  'duplicate keys': `${BASE_YAML}loss: meanSquaredError\n`,
  tabs: BASE_YAML.replace(/^ {2}/gm, '\t'),
  'byte-order mark': `\ufeff${BASE_YAML}`,
  'huge number': BASE_YAML.replace('batchSize: 32', `batchSize: ${'9'.repeat(400)}`),
  '__proto__ key': `${BASE_YAML}__proto__: { loss: meanSquaredError }\n`,
  'nested __proto__': BASE_YAML.replace('log: { every: 1 }', 'log: { __proto__: { every: 1 } }'),
};

function mutateText(rng: Rng, text: string): string {
  const specials = [
    ':',
    '-',
    '[',
    ']',
    '{',
    '}',
    '&a',
    '*a',
    '!',
    '!!str',
    '%',
    '|',
    '>',
    '#',
    '"',
    "'",
    '\t',
    '\n',
    ' ',
    ',',
    '*src',
    '? ',
    '---',
    '...',
    '@',
    '`',
    '\\',
    '\u0000',
    'é',
  ];
  let s = text;
  for (let m = 1 + rng.below(3); m > 0; m--) {
    const at = rng.below(s.length + 1);
    switch (rng.below(5)) {
      case 0:
        s = s.slice(0, at);
        break; // truncation
      case 1:
        s = s.slice(0, at) + pick(rng, specials) + s.slice(at);
        break;
      case 2:
        s = s.slice(0, at) + s.slice(at + 1 + rng.below(10));
        break;
      case 3: {
        const lines = s.split('\n');
        const i = rng.below(lines.length);
        if (rng.below(2)) lines.splice(i, 1);
        else lines.splice(rng.below(lines.length), 0, lines[i]!);
        s = lines.join('\n');
        break;
      }
      default:
        s = s.slice(0, at) + randomString(rng) + s.slice(at);
    }
  }
  return s;
}

async function checkLoad(file: string, sets: string[], what: string): Promise<'ok' | 'rejected'> {
  let c: Config;
  try {
    c = await loadConfig(file, sets, dir);
  } catch (err) {
    if (!(err instanceof ConfigError))
      assert.fail(`${what}: threw ${err instanceof Error ? err.stack : String(err)}\ntext: ${JSON.stringify(fs.readFileSync(file, 'utf8').slice(0, 3000))}`);
    assert.equal(err.code, 'E_CONFIG', what);
    assert.equal(typeof err.keyPath, 'string', what);
    if (err.keyPath === '') assert.ok(err.message.includes(file), `${what}: an error with no key path must name the file: ${err.message}`);
    else assert.ok(err.message.startsWith(`${err.keyPath}: `), `${what}: ${err.message}`);
    return 'rejected';
  }
  checkConfig(c, what);
  return 'ok';
}

test('loadConfig: random, truncated and mutated YAML/JSON text gives a Config or a ConfigError', async () => {
  const rng = mulberry32(0x7a31);
  const counts = { ok: 0, rejected: 0 };
  const yamlFile = path.join(dir, 'fuzz.yaml');
  const jsonFile = path.join(dir, 'fuzz.json');
  const baseJson = JSON.stringify(validRaw(), null, 1);
  fs.writeFileSync(yamlFile, BASE_YAML);
  assert.equal(await checkLoad(yamlFile, [], 'the base YAML'), 'ok');
  fs.writeFileSync(jsonFile, baseJson);
  assert.equal(await checkLoad(jsonFile, [], 'the base JSON'), 'ok');

  for (const [name, text] of Object.entries(NASTY)) {
    fs.writeFileSync(yamlFile, text);
    counts[await checkLoad(yamlFile, [], `nasty: ${name}`)]++;
  }
  for (let i = 0; i < 1200; i++) {
    const json = i % 4 === 3;
    const file = json ? jsonFile : yamlFile;
    const text = i % 10 === 0 ? randomString(rng) + randomString(rng) : mutateText(rng, json ? baseJson : BASE_YAML);
    fs.writeFileSync(file, text);
    counts[await checkLoad(file, [], `text #${i} (${json ? 'json' : 'yaml'})`)]++;
  }
  assert.ok(counts.ok > 30 && counts.rejected > 600, JSON.stringify(counts));
});

test('loadConfig: random --set overrides give a Config or a ConfigError', async () => {
  const rng = mulberry32(0x5e7);
  const counts = { ok: 0, rejected: 0 };
  const file = path.join(dir, 'sets.yaml');
  fs.writeFileSync(file, BASE_YAML);
  const keys = [
    'reliability.onWorkerFailure',
    'reliability.maxRestarts',
    'reliability.stallFactor',
    'reliability.startTimeout',
    'checkpoint.every',
    'training.batchSize',
    'devices.gpus',
    'devices.shmDir',
    'model',
    'model.module.x',
    'data.train',
    'optimizer.learningRate',
    'log',
    '__proto__.x',
    'a.b.c',
    '',
    '.',
    'x..y',
    'training.',
  ];
  const values = [
    'restart',
    'abort',
    '3',
    '-1',
    '1e400',
    '.nan',
    '[0, 1]',
    '{a: 1}',
    '*x',
    '&a [*a]',
    '!!binary aGk=',
    'null',
    '~',
    '"',
    '[',
    '',
    'a: b: c',
    '- x\n- y',
    '%YAML 1.1',
  ];
  for (let i = 0; i < 600; i++) {
    const sets = Array.from({ length: 1 + rng.below(3) }, () => {
      const k = rng.below(8) === 0 ? randomString(rng) : pick(rng, keys);
      const v = rng.below(6) === 0 ? randomString(rng) : pick(rng, values);
      return rng.below(20) === 0 ? `${k}${v}` : `${k}=${v}`;
    });
    counts[await checkLoad(file, sets, `--set ${JSON.stringify(sets)}`)]++;
  }
  assert.ok(counts.ok > 5 && counts.rejected > 300, JSON.stringify(counts));
});
