// MGPU_CONV_LIBRARY chooses what computes the native convolutions: oneDNN where the addon has it
// (the default), or the addon's own kernels (`own`); the run header says which. An unknown value,
// or `onednn` where the addon was built without it, is E_CONFIG naming the variable, never a
// silent fallback.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { MgpuError } from '../../src/shared/errors.ts';
import { libraryAsked, nativeConv, resetNativeConv, wasmConvolutions } from '../../src/worker/wasm-kernels/native-conv.ts';
import { nativeSkip } from '../helpers/native.ts';

const saved = process.env.MGPU_CONV_LIBRARY;
afterEach(() => asking(saved));
const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);
const hasOnednn = nativeConv().addon?.onednnVersion() != null;

/** MGPU_CONV_LIBRARY set to `value` (undefined: unset), the addon loaded again. */
function asking(value: string | undefined) {
  if (value === undefined) delete process.env.MGPU_CONV_LIBRARY;
  else process.env.MGPU_CONV_LIBRARY = value;
  resetNativeConv();
  return () => nativeConv();
}

/** An addon that records what it is told, with oneDNN (a version) or without (null). */
function standIn(version: string | null) {
  const told: boolean[] = [];
  return { told, addon: { onednnVersion: () => version, useOnednn: (on: boolean) => void told.push(on) } };
}

test('an unknown MGPU_CONV_LIBRARY is E_CONFIG naming it and what it takes', { skip }, () => {
  assert.throws(
    asking('mkl'),
    (e: unknown) =>
      e instanceof MgpuError &&
      e.code === 'E_CONFIG' &&
      /MGPU_CONV_LIBRARY=mkl: expected onednn or own/.test(e.message) &&
      /onednn: oneDNN .*own: the addon's own kernels/.test(e.hint ?? ''),
  );
});

test('what each value tells the addon and what computes, with oneDNN and without (a stand-in addon)', () => {
  const cases: [string | null, string | undefined, boolean, string | null][] = [
    ['oneDNN 9.9.9', undefined, true, 'oneDNN 9.9.9'],
    ['oneDNN 9.9.9', '', true, 'oneDNN 9.9.9'],
    ['oneDNN 9.9.9', 'onednn', true, 'oneDNN 9.9.9'],
    ['oneDNN 9.9.9', 'own', false, null],
    [null, undefined, true, null],
    [null, 'own', false, null],
  ];
  for (const [version, value, on, library] of cases) {
    const s = standIn(version);
    assert.equal(libraryAsked(s.addon, { MGPU_CONV_LIBRARY: value }), library, `${version} with ${value}`);
    assert.deepEqual(s.told, [on], `${version} with ${value}`);
  }
});

test('onednn where the addon lacks it: E_CONFIG saying how to install it, and the addon told nothing', () => {
  const s = standIn(null);
  assert.throws(
    () => libraryAsked(s.addon, { MGPU_CONV_LIBRARY: 'onednn' }),
    (e: unknown) => e instanceof MgpuError && e.code === 'E_CONFIG' && /built without oneDNN/.test(e.message) && /libdnnl-dev/.test(e.hint ?? ''),
  );
  assert.deepEqual(s.told, []);
});

test('own: the addon computes without oneDNN, and the run header says so', { skip }, () => {
  assert.equal(asking('own')().library, null);
  assert.match(wasmConvolutions(), /^in C \((avx512|avx2-fma|generic) micro-kernel\)$/);
});

test(
  'unset or onednn: oneDNN where the addon has it, and the run header names its version',
  { skip: skip || (!hasOnednn && 'the addon was built without oneDNN') },
  () => {
    for (const value of [undefined, 'onednn']) {
      assert.match(asking(value)().library ?? 'null', /^oneDNN \d+\.\d+\.\d+$/);
      assert.match(wasmConvolutions(), /^in C on oneDNN \d+\.\d+\.\d+ \(the (avx512|avx2-fma|generic) micro-kernel for what it declines\)$/);
    }
  },
);

test(
  'the choice takes effect, the right way round: oneDNN and the own kernels sum in other orders, so their bits differ, within float error',
  { skip: skip || (!hasOnednn && 'the addon was built without oneDNN') },
  () => {
    // x [2, 8, 8, 64], a 3x3 filter to 32 channels, 'same': 576 products a sum.
    const geom = Int32Array.from([2, 8, 8, 64, 8, 8, 32, 3, 3, 1, 1, 1, 1, 8, 8]);
    const x = Float32Array.from({ length: 2 * 8 * 8 * 64 }, (_, i) => Math.sin(i * 0.37));
    const w = Float32Array.from({ length: 3 * 3 * 64 * 32 }, (_, i) => Math.cos(i * 0.11) / 24);
    const conv = (set: () => void) => {
      set();
      const y = new Float32Array(2 * 8 * 8 * 32);
      nativeConv().addon!.conv2d(x, w, null, y, geom, 0);
      return y;
    };
    const own = conv(() => asking('own')());
    const onednn = conv(() => asking('onednn')());
    assert.ok(
      own.some((v, i) => v !== onednn[i]),
      'MGPU_CONV_LIBRARY changed nothing: the same bits from both',
    );
    own.forEach((v, i) => assert.ok(Math.abs(v - onednn[i]!) <= 1e-4 * (1 + Math.abs(v)), `output ${i}: own ${v}, oneDNN ${onednn[i]}`));
    // Each value set the addon the right way round: the bits of the addon told directly.
    assert.deepEqual(
      conv(() => nativeConv().addon!.useOnednn(false)),
      own,
      'MGPU_CONV_LIBRARY=own did not give the own kernels',
    );
    assert.deepEqual(
      conv(() => nativeConv().addon!.useOnednn(true)),
      onednn,
      'MGPU_CONV_LIBRARY=onednn did not give oneDNN',
    );
  },
);
