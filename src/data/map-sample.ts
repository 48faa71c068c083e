// One sample of a map-style module as the bytes of its rows, checked against sample 0 (its
// shapes and dtypes): what the coordinator's thread does for each get() without data.threads,
// and what each data thread does with it (map-thread.ts). A bad sample is a DataError naming the
// module and the sample (`fail`).
import { messageOf } from '../shared/errors.ts';
import type { Dtype } from './columns.ts';
import type { MapStyle } from './map-style.ts';
import { valuesOf } from './sample-module.ts';
import { valueText } from './value-text.ts';

export type Fail = (index: number, message: string, hint?: string) => never;

/** One part of a sample (x or y): its row shape and dtype, fixed by sample 0. */
export interface Part {
  key: 'x' | 'y';
  shape: number[];
  dtype: Dtype;
}

const sizeOf = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const shapeText = (s: readonly number[]) => `[${s.join(', ')}]`;

/** The bytes of a part's row (float32 or int32 values). */
export const partBytes = (part: Part): number => sizeOf(part.shape) * 4;

/** Sample 0's parts: x float32 of its shape; y int32 class indices when an integer scalar, else float32. */
export function partsOf(first: { x: unknown; y: unknown }, fail: Fail): Part[] {
  return (['x', 'y'] as const).map((key): Part => {
    const v = valuesOf(first[key], key, 0, fail);
    const integer = key === 'y' && v.shape.length === 0 && Number.isInteger(v.data[0]);
    return { key, shape: v.shape, dtype: integer ? 'int32' : 'float32' };
  });
}

/** A get() call as a message names the sample it makes: `data.train: module m.mjs: sample 5: get(5, { epoch: 1, split: 'data.train' })`. */
export function getCall(where: string, index: number, epoch: number, split: string): string {
  return `${where}: sample ${index}: get(${index}, { epoch: ${epoch}, split: '${split}' })`;
}

/** get(index) as `{ x, y }`, or a DataError saying what it threw or gave. */
export async function fetchSample(ms: MapStyle, index: number, epoch: number, split: string, fail: Fail): Promise<{ x: unknown; y: unknown }> {
  let s: unknown;
  try {
    s = await ms.get(index, { epoch, split });
  } catch (err) {
    return fail(index, `get(${index}) threw: ${messageOf(err)}`);
  }
  if (typeof s !== 'object' || s === null || !('x' in s) || !('y' in s))
    return fail(index, `get(${index}) gave ${s === null ? 'null' : typeof s} without x and y (expected { x, y })`);
  return s;
}

/** Writes sample `index` (x then y) into `out` (the parts' bytes, one after another). */
export async function placeSample(ms: MapStyle, parts: Part[], index: number, epoch: number, split: string, out: Uint8Array, fail: Fail): Promise<void> {
  const s = await fetchSample(ms, index, epoch, split, fail);
  let at = 0;
  for (const part of parts) {
    const bytes = partBytes(part);
    placePart(part, s[part.key], index, fail, out.subarray(at, at + bytes));
    at += bytes;
  }
}

/** A sample's x or y into `out`, checked against sample 0's shape and dtype. */
function placePart(part: Part, v: unknown, index: number, fail: Fail, out: Uint8Array): void {
  const got = valuesOf(v, part.key, index, fail);
  if (got.shape.join('x') !== part.shape.join('x'))
    fail(
      index,
      `${part.key} has shape ${shapeText(got.shape)} but sample 0's has shape ${shapeText(part.shape)} (expected every sample's ${part.key} to have the same shape)`,
    );
  const n = got.data.length;
  const row = part.dtype === 'int32' ? new Int32Array(out.buffer, out.byteOffset, n) : new Float32Array(out.buffer, out.byteOffset, n);
  for (let i = 0; i < n; i++) {
    const raw = got.data[i];
    const x = typeof raw === 'number' ? raw : typeof raw === 'boolean' ? +raw : NaN;
    if (!Number.isFinite(x)) fail(index, `${part.key} holds ${valueText(raw)} at flat position ${i} (expected finite numbers)`);
    if (part.dtype === 'int32' && !Number.isInteger(x)) fail(index, `y is ${x}, but sample 0's y is a class index (expected an integer)`);
    row[i] = x;
  }
}
