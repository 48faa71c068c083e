// A map-style data module, as a PyTorch Dataset: its default export is (or returns) an object
// `{ length, get(i, { epoch, split }) }`, and `get` gives sample i as `{ x, y }` (sync or async).
// Nothing is read before step 0 but sample 0 (for the shapes): the rows of each step are asked
// for `data.prefetch` steps ahead (input-feed.ts), kept until they are staged, then dropped, so
// any format a user has (Parquet, LMDB, a folder of their own files) streams without being
// materialised, and the coordinator holds the rows of a few batches, not the split.
//
// Without data.threads, `get` runs in the coordinator's thread (as DataLoader's num_workers=0):
// make it async for I/O. With data.threads set to a number, it runs in that many threads, each
// importing the module itself (map-thread-pipeline.ts), for a `get` that does synchronous work.
// `epoch` lets it augment; the rows made are cached by (epoch, index), so a deterministic `get`
// gives the same bits for any number of threads and workers and on a rerun. x must be one value
// (features, float32); y one value: class indices (int32) when sample 0's y is an integer scalar,
// else float32 rows of its shape. Every sample must match sample 0's shapes; a mismatch, a
// non-finite value or a throw is a DataError naming the module and the sample; with
// data.onBadSample: skip, such a training sample is left out of its batch instead (input-feed.ts).
import { DataError } from '../shared/errors.ts';
import type { NdArray } from '../shared/npy.ts';
import { noWholeArray, type Column, type RowPipeline } from './columns.ts';
import type { Dataset } from './rows.ts';
import type { MapStyle } from './map-style.ts';
import { fetchSample, getCall, partBytes, partsOf, placeSample, type Fail, type Part } from './map-sample.ts';
import { MapThreadPipeline } from './map-thread-pipeline.ts';
import { valueText } from './value-text.ts';

type LabelCheck = { ok: (v: number) => boolean; expected: string }; // the loss's, from row-format.ts

/** The rows a map-style split makes: its pipeline, and the bytes (x then y) of a made row. */
type MapRows = RowPipeline & { row(index: number, epoch: number): Uint8Array | undefined };

/**
 * The dataset of a map-style module; `where` names it in errors (`data.train: module m.ts`).
 * `threads`: data.threads, the threads get() runs in; null: the coordinator's own.
 */
export async function mapStyleDataset(
  ms: MapStyle,
  where: string,
  split: string,
  file: string,
  threads: number | null = null,
  skipBad = false, // data.onBadSample: skip (data.train): a sample get() fails to give is left out of its batch
): Promise<Dataset> {
  const count = ms.length;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new DataError(
      `${where}: its length is ${valueText(count)} (expected a whole number of samples, at least 1)`,
      'length is the number of samples get(i) serves, i in [0, length)',
    );
  const fail: Fail = (index, message, hint) => {
    throw new DataError(`${where}: sample ${index}: ${message}`, hint);
  };
  const parts = partsOf(await fetchSample(ms, 0, 0, split, fail), fail);
  const labelChecks: LabelCheck[] = [];
  const check = (index: number, row: Uint8Array) => checkLabelRow(row.subarray(partBytes(parts[0]!)), parts[1]!, labelChecks, index, fail);
  const header = `map-style module ${file}: ${count} samples, read on demand`;
  const rows: MapRows =
    threads === null
      ? inThisThread(ms, { count, parts, where, split, header, skipBad }, fail, check)
      : new MapThreadPipeline({ file, keyPath: split, where, length: count, parts }, threads, header, check, skipBad);
  const column = (p: number): Column => {
    const part = parts[p]!;
    const bytes = partBytes(part);
    const from = p === 0 ? 0 : partBytes(parts[0]!);
    return {
      dtype: part.dtype,
      shape: [count, ...part.shape],
      kind: 'made',
      gather(indices, out, offset, epoch = 0) {
        for (let i = 0; i < indices.length; i++) {
          const row = rows.row(indices[i]!, epoch);
          if (!row) return fail(indices[i]!, `was staged before it was read (epoch ${epoch}): a bug in mgpu-train's input feed`);
          out.set(row.subarray(from, from + bytes), offset + i * bytes);
        }
        return indices.length * bytes;
      },
      toArray: (): NdArray => noWholeArray(`${where} ${part.key}`),
      ...(part.key === 'y' ? { checkEach: (ok: (v: number) => boolean, expected: string) => void labelChecks.push({ ok, expected }) } : {}),
    };
  };
  return { features: column(0), labels: column(1), count, source: `module ${file} (map-style)`, pipeline: rows };
}

/**
 * get() in the coordinator's thread: each (epoch, index) made once, kept until released; with
 * skipBad, a sample get() fails to give (it throws, or gives a value that does not fit) is
 * remembered with why, and ready() resolves without it (failed() names it).
 */
function inThisThread(
  ms: MapStyle,
  { count, parts, where, split, header, skipBad }: { count: number; parts: Part[]; where: string; split: string; header: string; skipBad: boolean },
  fail: Fail,
  check: (index: number, row: Uint8Array) => void,
): MapRows {
  const rowBytes = parts.reduce((sum, p) => sum + partBytes(p), 0);
  const made = new Map<number, Uint8Array>(); // epoch * count + index -> the bytes of x then y
  const pending = new Map<number, Promise<void>>();
  const failed = new Map<number, string>(); // skipBad: epoch * count + index -> why it could not be made
  const key = (epoch: number, index: number) => epoch * count + index;
  const make = (index: number, epoch: number): Promise<void> => {
    const k = key(epoch, index);
    if (made.has(k) || failed.has(k)) return Promise.resolve();
    let p = pending.get(k);
    if (!p) {
      const row = new Uint8Array(rowBytes);
      p = placeSample(ms, parts, index, epoch, split, row, fail)
        .then(
          () => {
            check(index, row); // the loss's label rules: a config mismatch, never skipped
            made.set(k, row);
          },
          (err: unknown) => {
            if (!skipBad || !(err instanceof DataError)) throw err;
            failed.set(k, err.message);
          },
        )
        .finally(() => pending.delete(k));
      pending.set(k, p);
    }
    return p;
  };
  return {
    prefetch: (indices, epoch) => indices.forEach((i) => void make(i, epoch).catch(() => {})), // the error comes again from ready()
    ready: async (indices, epoch) => {
      await Promise.all(Array.from(indices, (i) => make(i, epoch)));
    },
    isReady: (indices, epoch) => indices.every((i) => made.has(key(epoch, i))),
    failed: (indices, epoch) =>
      Array.from(indices, (i, at) => ({ at, message: failed.get(key(epoch, i)) })).filter((f): f is { at: number; message: string } => f.message !== undefined),
    release: (indices, epoch) =>
      indices.forEach((i) => {
        made.delete(key(epoch, i));
        failed.delete(key(epoch, i));
      }),
    row: (index, epoch) => made.get(key(epoch, index)),
    unsettled: (indices, epoch) => {
      const i = indices.find((i) => pending.has(key(epoch, i)));
      return i === undefined ? null : getCall(where, i, epoch, split);
    },
    close: () => Promise.resolve(),
    describe: () => header,
  };
}

/** A made label row against the loss's checks (class index range, values in [0, 1]). */
function checkLabelRow(bytes: Uint8Array, part: Part, checks: LabelCheck[], index: number, fail: Fail): void {
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
