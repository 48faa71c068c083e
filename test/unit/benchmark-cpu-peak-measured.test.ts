// One core's FP32 peak, measured by the convolution addon's FMA loop (native/src/fma-peak.c) at
// the vector width its convolutions use (the same run-time choice: AVX-512 where the CPU has it),
// and what the benchmark says without the addon (MGPU_NATIVE_CONV=0), or with one built before it
// could measure: no peak, and why. Each ISA the addon may name, in words.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cpuPeak, isaWords } from '../../src/benchmark/utilisation.ts';
import { nativeConv, resetNativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { nativeSkip } from '../helpers/native.ts';

const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);
const WIDTH: Record<string, string> = { avx512: 'AVX-512', 'avx2-fma': 'AVX2+FMA', generic: 'scalar' };

after(() => {
  delete process.env.MGPU_NATIVE_CONV;
  resetNativeConv();
});

test('measured: a finite positive GFLOP/s per core, named by the vector width the convolutions use', { skip }, () => {
  const { peak, missing } = cpuPeak(0.1);
  assert.equal(missing, null);
  assert.ok(Number.isFinite(peak.gflopsPerDevice) && peak.gflopsPerDevice > 0, `${peak.gflopsPerDevice}`);
  assert.equal(peak.device, 'core');
  assert.equal(peak.source, `measured, ${WIDTH[nativeConv().addon!.isa()]} FMA loop on one core`);
});

test('without the addon: no peak, and the reason', () => {
  process.env.MGPU_NATIVE_CONV = '0';
  resetNativeConv();
  const { peak, missing } = cpuPeak(0.1);
  assert.equal(peak, null);
  assert.match(missing, /measured by the convolution addon, which is not in use \(MGPU_NATIVE_CONV=0/);
});

test('an addon built before the FMA loop: no peak, and the rebuild that gives one', () => {
  const { addon } = nativeConv();
  const old = { addon: { ...(addon ?? {}), fmaPeak: undefined } as unknown as NonNullable<typeof addon>, reason: null, library: null };
  assert.deepEqual(cpuPeak(0.1, old), { peak: null, missing: 'the convolution addon was built before it could measure the peak: npm run build:native' });
});

test('an ISA in words: AVX-512, AVX2+FMA, else scalar', () => {
  assert.deepEqual(['avx512', 'avx2-fma', 'generic', 'scalar'].map(isaWords), ['AVX-512', 'AVX2+FMA', 'scalar', 'scalar']);
});
