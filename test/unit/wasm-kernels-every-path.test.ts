// The wasm kernel tests run on the fastest path this machine has: the C convolutions on oneDNN
// where the addon has it, else on its own kernels with the widest micro-kernel the CPU runs. The
// other paths must stay right too, for machines without oneDNN, a compiler or AVX-512: the
// convolution, depthwise gradient, ReLU-with-a-ceiling and element-wise tests again with MGPU_NATIVE_CONV=0 (XNNPACK and the
// JavaScript kernels), and the native convolution test with MGPU_CONV_LIBRARY=own (the addon's
// own kernels), also with MGPU_CONV_ISA=avx2 and =generic (the 6x16 micro-kernels), each in a
// process of its own (the addon, the library and the micro-kernel are chosen once per process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const RUNS: [string, Record<string, string>][] = [
  ['wasm-conv2d-backprop-filter', { MGPU_NATIVE_CONV: '0' }],
  ['wasm-conv2d-backprop-input', { MGPU_NATIVE_CONV: '0' }],
  ['wasm-depthwise-backprop-filter', { MGPU_NATIVE_CONV: '0' }],
  ['wasm-depthwise-backprop-input', { MGPU_NATIVE_CONV: '0' }],
  ['relu6-fused', { MGPU_NATIVE_CONV: '0' }],
  ['relu-layer-fused', { MGPU_NATIVE_CONV: '0' }],
  ['wasm-elementwise-equals-wasm', { MGPU_NATIVE_CONV: '0' }],
  ['wasm-native-conv-equals-cpu', { MGPU_CONV_LIBRARY: 'own' }],
  ['wasm-native-conv-equals-cpu', { MGPU_CONV_LIBRARY: 'own', MGPU_CONV_ISA: 'avx2' }],
  ['wasm-native-conv-equals-cpu', { MGPU_CONV_LIBRARY: 'own', MGPU_CONV_ISA: 'generic' }],
];

/** This process's environment without node:test's marker, so that the child runs its own tests. */
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...rest } = process.env;
  return rest;
}

for (const [file, env] of RUNS) {
  const how = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  test(`${file} passes with ${how}`, () => {
    const path = fileURLToPath(new URL(`./${file}.test.ts`, import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', path], {
      env: { ...childEnv(), ...env },
      encoding: 'utf8',
      timeout: 300_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    const passed = Number(/^# pass (\d+)/m.exec(out)?.[1] ?? 0);
    assert.equal(r.status, 0, `${file} with ${how} failed:\n${out.slice(-3000)}`);
    assert.match(out, /^# fail 0$/m);
    assert.ok(passed > 0, `${file} with ${how} ran no test`);
  });
}
