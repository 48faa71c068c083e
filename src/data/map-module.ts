// A map-style data module, as a PyTorch Dataset: its default export is (or returns) an object
// `{ length, get(i, { epoch, split }) }`, and `get` gives sample i as `{ x, y }` (sync or async).
// Nothing is read before step 0 but sample 0 (for the shapes): the rows of each step are asked
// for `data.prefetch` steps ahead (input-feed.ts), kept until they are staged, then dropped, so
// any format a user has (Parquet, LMDB, a folder of their own files) streams without being
// materialised, and the coordinator holds the rows of a few batches, not the split.
//
// `get` runs in the coordinator's thread (its object is never copied into other threads, unlike
// DataLoader's workers): make it async for I/O, and keep synchronous work in it light. `epoch` lets
// it augment; the rows made are cached by (epoch, index), so a deterministic `get` gives the same
// bits for any number of workers and on a rerun. x must be one value (features, float32); y one
// value: class indices (int32) when sample 0's y is an integer scalar, else float32 rows of its
// shape. Every sample must match sample 0's shapes; a mismatch, a non-finite value or a throw is a
// DataError naming the module and the sample.
import { DataError, messageOf } from '../shared/errors.ts';
import type { NdArray } from '../shared/npy.ts';
import { noWholeArray, type Column, type Dtype, type RowPipeline } from './columns.ts';
import type { Dataset } from './rows.ts';
import type { MapStyle } from './map-style.ts';
import { valuesOf } from './sample-module.ts';

const sizeOf = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const shapeText = (s: readonly number[]) => `[${s.join(', ')}]`;

/** One part of a sample (x or y): its row shape and dtype, fixed by sample 0. */
interface Part {
  key: 'x' | 'y';
  shape: number[];
  dtype: Dtype;
}

/** The dataset of a map-style module; `where` names it in errors (`data.train: module m.ts`). */
export async function mapStyleDataset(ms: MapStyle, where: string, split: string, file: string): Promise<Dataset> {
  const count = ms.length;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new DataError(
      `${where}: its length is ${String(count)} (expected a whole number of samples, at least 1)`,
      'length is the number of samples get(i) serves, i in [0, length)',
    );
  const fail = (index: number, message: string, hint?: string): never => {
    throw new DataError(`${where}: sample ${index}: ${message}`, hint);
  };
  const first = await fetchSample(ms, 0, 0, split, fail);
  const parts = (['x', 'y'] as const).map((key): Part => {
    const v = valuesOf(first[key], key, 0, fail);
    const integer = key === 'y' && v.shape.length === 0 && Number.isInteger(v.data[0]);
    return { key, shape: v.shape, dtype: integer ? 'int32' : 'float32' };
  });
  const made = new Map<string, Uint8Array[]>(); // `${epoch}:${index}` -> the bytes of x and y
  const labelChecks: { ok: (v: number) => boolean; expected: string }[] = []; // the loss's, from row-format.ts
  const pending = new Map<string, Promise<void>>();
  const key = (epoch: number, index: number) => `${epoch}:${index}`;
  const make = (index: number, epoch: number): Promise<void> => {
    const k = key(epoch, index);
    if (made.has(k)) return Promise.resolve();
    let p = pending.get(k);
    if (!p) {
      p = fetchSample(ms, index, epoch, split, fail)
        .then((s) => {
          const rows = parts.map((part) => rowBytes(part, s[part.key], index, fail));
          checkLabelRow(rows[1]!, parts[1]!, labelChecks, index, fail);
          made.set(k, rows);
        })
        .finally(() => pending.delete(k));
      pending.set(k, p);
    }
    return p;
  };
  const pipeline: RowPipeline = {
    prefetch: (indices, epoch) => indices.forEach((i) => void make(i, epoch).catch(() => {})), // the error comes again from ready()
    ready: async (indices, epoch) => {
      await Promise.all(Array.from(indices, (i) => make(i, epoch)));
    },
    isReady: (indices, epoch) => indices.every((i) => made.has(key(epoch, i))),
    release: (indices, epoch) => indices.forEach((i) => made.delete(key(epoch, i))),
    close: () => Promise.resolve(),
    describe: () => `map-style module ${file}: ${count} samples, read on demand`,
  };
  const column = (p: number): Column => {
    const part = parts[p]!;
    const bytes = sizeOf(part.shape) * 4;
    return {
      dtype: part.dtype,
      shape: [count, ...part.shape],
      kind: 'made',
      gather(indices, out, offset, epoch = 0) {
        for (let i = 0; i < indices.length; i++) {
          const row = made.get(key(epoch, indices[i]!));
          if (!row) return fail(indices[i]!, `was staged before it was read (epoch ${epoch}): a bug in mgpu-train's input feed`);
          out.set(row[p]!, offset + i * bytes);
        }
        return indices.length * bytes;
      },
      toArray: (): NdArray => noWholeArray(`${where} ${part.key}`),
      ...(part.key === 'y' ? { checkEach: (ok: (v: number) => boolean, expected: string) => void labelChecks.push({ ok, expected }) } : {}),
    };
  };
  return { features: column(0), labels: column(1), count, source: `module ${file} (map-style)`, pipeline };
}

async function fetchSample(
  ms: MapStyle,
  index: number,
  epoch: number,
  split: string,
  fail: (i: number, m: string, h?: string) => never,
): Promise<{ x: unknown; y: unknown }> {
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

/** A sample's x or y as the bytes of its row, checked against sample 0's shape and dtype. */
function rowBytes(part: Part, v: unknown, index: number, fail: (i: number, m: string, h?: string) => never): Uint8Array {
  const got = valuesOf(v, part.key, index, fail);
  if (got.shape.join('x') !== part.shape.join('x'))
    fail(
      index,
      `${part.key} has shape ${shapeText(got.shape)} but sample 0's has shape ${shapeText(part.shape)} (expected every sample's ${part.key} to have the same shape)`,
    );
  const row = part.dtype === 'int32' ? new Int32Array(got.data.length) : new Float32Array(got.data.length);
  for (let i = 0; i < got.data.length; i++) {
    const raw = got.data[i];
    const x = typeof raw === 'number' ? raw : typeof raw === 'boolean' ? +raw : NaN;
    if (!Number.isFinite(x)) fail(index, `${part.key} holds ${String(raw)} at flat position ${i} (expected finite numbers)`);
    if (part.dtype === 'int32' && !Number.isInteger(x)) fail(index, `y is ${x}, but sample 0's y is a class index (expected an integer)`);
    row[i] = x;
  }
  return new Uint8Array(row.buffer);
}

/** A made label row against the loss's checks (class index range, values in [0, 1]). */
function checkLabelRow(
  bytes: Uint8Array,
  part: Part,
  checks: { ok: (v: number) => boolean; expected: string }[],
  index: number,
  fail: (i: number, m: string, h?: string) => never,
): void {
  if (checks.length === 0) return;
  const values =
    part.dtype === 'int32'
      ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
      : new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  for (const c of checks) {
    const bad = values.find((v) => !c.ok(v));
    if (bad !== undefined) fail(index, `its label is ${bad}; the loss expects ${c.expected}`, 'check the labels get() gives and the loss in the config');
  }
}
