// The float kernels give the same bits from the C addon as from their JavaScript fallback: a run
// must not change when the addon is (or is not) built. Random values, lengths that leave a tail
// of fewer than 8 and a partial last chunk, subnormals, and NaN / Infinity for allFinite.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { floatKernels, jsFloatKernels, nativeKernelsUnavailableReason, type FloatKernels } from '../../src/shared/float-kernels.ts';
import { seededRandom } from '../helpers/close.ts';
import { nativeSkip } from '../helpers/native.ts';

const native = floatKernels();
const skip = nativeSkip(native.kind === 'native' ? false : `the addon is not in use: ${nativeKernelsUnavailableReason}`);
const LENGTHS = [1, 7, 8, 13, 64, 1000, 4096 + 5, 3 * 4096];
const CHUNK = 4096;

function randomFloats(seed: number, n: number): Float32Array {
  const rand = seededRandom(seed);
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rand();
    // Mostly ordinary values over many magnitudes, some subnormals, some exact zeros.
    a[i] = u < 0.05 ? 1e-41 * (rand() - 0.5) : u < 0.1 ? 0 : (rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 6);
  }
  return a;
}

const bits = (a: Float32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

for (const n of LENGTHS) {
  test(`add, addSquares and every update kernel: native and JS agree to the bit (n = ${n})`, { skip }, () => {
    const g = randomFloats(n, n);
    const base = randomFloats(n + 1, n);
    const [o1, o2] = [base.slice(), base.slice()];
    native.add(o1, g);
    jsFloatKernels.add(o2, g);
    assert.ok(bits(o1).equals(bits(o2)), 'add');

    const sums = () => new Float64Array(Math.ceil(n / CHUNK));
    const [s1, s2, s3, s4] = [sums(), sums(), sums(), sums()];
    const [q1, q2] = [base.slice(), base.slice()];
    native.addSquares(q1, g, CHUNK, s1);
    jsFloatKernels.addSquares(q2, g, CHUNK, s2);
    assert.ok(bits(q1).equals(bits(q2)), 'addSquares: the sum');
    assert.ok(bits(s1).equals(bits(s2)), `addSquares: the squares (${String(s1)} vs ${String(s2)})`);
    native.addSquares(q1, null, CHUNK, s3);
    jsFloatKernels.addSquares(q2, null, CHUNK, s4);
    assert.ok(bits(s3).equals(bits(s4)), 'addSquares without g');

    const [w1, w2] = [base.slice(), base.slice()];
    native.sgd(w1, g, -0.0137);
    jsFloatKernels.sgd(w2, g, -0.0137);
    assert.ok(bits(w1).equals(bits(w2)), 'sgd');

    // Adam from nonzero m and v, without and with weight decay; twice, so m and v are its own.
    for (const decay of [1, 0.9995]) {
      const k = Float32Array.of(0.9, 0.999, 0.1, 0.001, 0.271, 0.00299, 1e-7, -0.001, decay);
      const m0 = randomFloats(n + 2, n);
      const v0 = randomFloats(n + 3, n).map(Math.abs);
      const a = { w: base.slice(), m: m0.slice(), v: v0.slice() };
      const b = { w: base.slice(), m: m0.slice(), v: v0.slice() };
      for (let rep = 0; rep < 2; rep++) {
        native.adam(a.w, g, a.m, a.v, k);
        jsFloatKernels.adam(b.w, g, b.m, b.v, k);
      }
      assert.ok(bits(a.m).equals(bits(b.m)) && bits(a.v).equals(bits(b.v)), `adam: m and v (decay ${decay})`);
      assert.ok(bits(a.w).equals(bits(b.w)), `adam: w (decay ${decay})`);
    }

    // The other rules' kernels, from nonzero slots (rmsprop's ms above mg^2, so centered stays finite).
    const slots = (count: number) =>
      Array.from({ length: count }, (_, j) => randomFloats(n + 4 + j, n).map((x, i) => (j === 0 ? Math.abs(x) + 1 + (i % 3) : x)));
    const kernelCases: Array<[string, number, (k: FloatKernels, w: Float32Array, s: Float32Array[]) => void]> = [
      ['momentum', 1, (k, w, s) => k.momentum(w, g, s[0]!, Float32Array.of(0.9, -0.01, 0))],
      ['momentum nesterov', 1, (k, w, s) => k.momentum(w, g, s[0]!, Float32Array.of(0.75, -0.2, 1))],
      ['rmsprop', 2, (k, w, s) => k.rmsprop(w, g, s[0]!, s[1]!, null, Float32Array.of(0.9, 0.1, 0.5, 1e-7, 0.001))],
      ['rmsprop centered', 3, (k, w, s) => k.rmsprop(w, g, s[0]!, s[1]!, s[2]!, Float32Array.of(0.8, 0.2, 0.7, 1e-5, 0.02))],
      ['adagrad', 1, (k, w, s) => k.adagrad(w, g, s[0]!, Float32Array.of(1e-7, -0.01))],
    ];
    for (const [name, count, run] of kernelCases) {
      const s0 = slots(count);
      const a = { w: base.slice(), s: s0.map((x) => x.slice()) };
      const b = { w: base.slice(), s: s0.map((x) => x.slice()) };
      for (let rep = 0; rep < 2; rep++) {
        run(native, a.w, a.s);
        run(jsFloatKernels, b.w, b.s);
      }
      a.s.forEach((x, j) => assert.ok(bits(x).equals(bits(b.s[j]!)), `${name}: slot ${j}`));
      assert.ok(bits(a.w).equals(bits(b.w)), `${name}: w`);
    }
  });
}

test('allFinite: native and JS agree on NaN, ±Infinity, the largest float and subnormals', { skip }, () => {
  for (const bad of [NaN, Infinity, -Infinity, 3.4028234663852886e38, -1e-45, 0]) {
    for (const at of [0, 5, 8, 1000]) {
      const a = randomFloats(at, 1001);
      a[at] = bad;
      assert.equal(native.allFinite(a), jsFloatKernels.allFinite(a), `${bad} at ${at}`);
      assert.equal(native.allFinite(a), Number.isFinite(Math.fround(bad)), `${bad} at ${at}`);
    }
  }
});

test('the native kernels refuse arrays of different lengths and a chunk that is not a multiple of 8', { skip }, () => {
  assert.throws(() => native.add(new Float32Array(3), new Float32Array(4)), /differ in length \(3 and 4\)/);
  assert.throws(() => native.addSquares(new Float32Array(16), null, 12, new Float64Array(2)), /multiple of 8/);
  assert.throws(() => native.addSquares(new Float32Array(16), null, 8, new Float64Array(1)), /one float64 per chunk/);
  assert.throws(() => native.sgd(new Float32Array(2), new Float64Array(2) as never, 1), /Float32Array/);
});
