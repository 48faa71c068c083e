// `mgpu-train benchmark`'s flags checked into one object: each wrong one E_USAGE naming the flag
// and what it takes, the defaults where a flag is not given.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { benchmarkOptions, workerCounts, BENCHMARK_DEFAULTS } from '../../src/benchmark/options.ts';
import type { MgpuError } from '../../src/shared/errors.ts';

const never = () => {
  throw new Error('the default counts were asked for');
};
const one = () => [1];
const refused = (fn: () => unknown, message: string, hint?: string | RegExp) =>
  assert.throws(fn, (err: MgpuError) => {
    assert.equal(err.code, 'E_USAGE');
    assert.equal(err.message, message);
    if (typeof hint === 'string') assert.equal(err.hint, hint);
    else if (hint) assert.match(err.hint!, hint);
    return true;
  });

test('the defaults: batch 32, 50 steps after 10 warm-up, the default counts, no JSON, no profile', () => {
  assert.deepEqual(BENCHMARK_DEFAULTS, { batch: 32, steps: 50, warmup: 10 });
  const o = benchmarkOptions({ net: 'mlp' }, () => [1, 2]);
  assert.deepEqual(o, {
    net: 'mlp',
    config: null,
    sets: [],
    batch: 32,
    workers: [1, 2],
    backend: null,
    simulate: false,
    oversubscribe: false,
    steps: 50,
    warmup: 10,
    json: null,
    profile: false,
  });
});

test('the flags given: taken as typed, the numbers trimmed', () => {
  const json = path.join(os.tmpdir(), 'bench-options.json');
  const o = benchmarkOptions(
    {
      config: 'exp.yaml',
      set: ['a=1'],
      batch: ' 8 ',
      workers: '4, 1',
      backend: 'cpu',
      simulate: true,
      oversubscribe: true,
      steps: '2',
      warmup: '1',
      json,
      profile: true,
    },
    never,
  );
  assert.deepEqual(o, {
    net: null,
    config: 'exp.yaml',
    sets: ['a=1'],
    batch: 8,
    workers: [4, 1],
    backend: 'cpu',
    simulate: true,
    oversubscribe: true,
    steps: 2,
    warmup: 1,
    json,
    profile: true,
  });
});

test('a network or a config, one of them', () => {
  refused(() => benchmarkOptions({}, never), 'name a network or give --config', 'mgpu-train benchmark <net> ... or mgpu-train benchmark --config exp.yaml ...');
  refused(() => benchmarkOptions({ net: 'mlp', config: 'x.yaml' }, never), 'a network (mlp) and --config x.yaml both given', /^time one of them/);
});

test('numbers: whole, at least their least', () => {
  refused(
    () => benchmarkOptions({ net: 'mlp', batch: '0' }, one),
    '--batch "0": expected an integer >= 1',
    'the samples each worker takes per step, e.g. --batch 64',
  );
  refused(() => benchmarkOptions({ net: 'mlp', batch: '1.5' }, one), '--batch "1.5": expected an integer >= 1');
  refused(() => benchmarkOptions({ net: 'mlp', batch: '-2' }, one), '--batch "-2": expected an integer >= 1');
  refused(() => benchmarkOptions({ net: 'mlp', batch: '99999999999999999999' }, one), '--batch "99999999999999999999": expected an integer >= 1');
  refused(() => benchmarkOptions({ net: 'mlp', steps: '1' }, one), '--steps "1": expected an integer >= 2', 'the steps measured, e.g. --steps 50');
  assert.equal(benchmarkOptions({ net: 'mlp', steps: '2' }, one).steps, 2);
  refused(() => benchmarkOptions({ net: 'mlp', warmup: '0' }, one), '--warmup "0": expected an integer >= 1', /^steps run before measuring/);
  assert.equal(benchmarkOptions({ net: 'mlp', warmup: '1' }, one).warmup, 1);
  assert.equal(benchmarkOptions({ net: 'mlp', batch: '1' }, one).batch, 1);
});

test('--workers: positive whole counts, each once; the default only when not given', () => {
  assert.deepEqual(workerCounts('2,1, 8', never), [2, 1, 8]);
  assert.deepEqual(
    workerCounts(undefined, () => [1, 2, 4]),
    [1, 2, 4],
  );
  refused(() => workerCounts('1,0', never), '--workers "1,0": "0" is not a positive integer', 'a comma-separated list of worker counts, e.g. --workers 1,2,4');
  refused(() => workerCounts('1,x', never), '--workers "1,x": "x" is not a positive integer');
  refused(() => workerCounts('1,', never), '--workers "1,": "" is not a positive integer');
  refused(() => workerCounts('1.5', never), '--workers "1.5": "1.5" is not a positive integer');
  refused(() => workerCounts('2,1,2', never), '--workers "2,1,2": 2 is listed twice', 'list each worker count once');
});

test('--backend: a backend, a mistyped one named with the nearest; --simulate takes a CPU one', () => {
  refused(
    () => benchmarkOptions({ net: 'mlp', backend: 'wsam' }, never),
    '--backend "wsam" is not a backend: did you mean wasm?',
    'the backends are auto, tfjs-node-gpu, webgpu, tfjs-node, wasm, cpu',
  );
  refused(() => benchmarkOptions({ net: 'mlp', backend: 'qqqqqqqqq' }, never), '--backend "qqqqqqqqq" is not a backend');
  refused(
    () => benchmarkOptions({ net: 'mlp', backend: 'webgpu', simulate: true }, never),
    '--simulate runs on a CPU backend, and --backend webgpu is a GPU one',
    'drop --simulate to time the GPU, or choose --backend wasm, cpu or tfjs-node',
  );
  assert.equal(benchmarkOptions({ net: 'mlp', backend: 'wasm', simulate: true }, one).backend, 'wasm');
  assert.equal(benchmarkOptions({ net: 'mlp', backend: 'webgpu' }, one).backend, 'webgpu');
});

test('--json: a file in a folder that exists, not a folder', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-json-'));
  try {
    refused(
      () => benchmarkOptions({ net: 'mlp', json: path.join(dir, 'no', 'out.json') }, never),
      `--json ${path.join(dir, 'no', 'out.json')}: the directory ${path.join(dir, 'no')} does not exist`,
      'create it first, or name a file in an existing directory',
    );
    refused(() => benchmarkOptions({ net: 'mlp', json: dir }, never), `--json ${dir} is a directory`, 'name a file, e.g. --json bench.json');
    fs.writeFileSync(path.join(dir, 'old.json'), '{}');
    assert.equal(benchmarkOptions({ net: 'mlp', json: path.join(dir, 'old.json') }, one).json, path.join(dir, 'old.json'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
