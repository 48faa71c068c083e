// A split's arrays as columns: rows of one shape and dtype that the stager copies into the slab,
// wherever they live. A column is held in memory (CSV, mnist, a generator module, a small array),
// mapped from an .npy file (read through the page cache, never into the heap: a file larger than
// memory trains), joined from several files (`features: ./x-*.npy`), a view of some rows of
// another (the hold-out split), or made on demand by a RowPipeline (decoded images, a map-style
// module), which prepares the rows of the next steps before they are staged.
import { DataError, MgpuError } from '../shared/errors.ts';
import { VIEWS, type DType, type NdArray } from '../shared/npy.ts';
import { copyRuns, gatherRows, rowBytes } from './row-copy.ts';

export type Dtype = DType;

export interface Column {
  readonly dtype: Dtype;
  readonly shape: number[]; // [count, ...row]
  /** memory: in the heap; mapped: pages of files; made: rows a RowPipeline produces on demand. */
  readonly kind: 'memory' | 'mapped' | 'made';
  /** The dtype the file stored when it was converted on reading (float64, int64, bool, ...). */
  readonly storedAs?: string;
  /** A 'mapped' column read with pread instead (MGPU_MMAP=0, no addon, a filesystem that cannot map): every part, or some. */
  readonly positional?: 'all' | 'some';
  /**
   * Copies rows `indices`, in order, into `out` from byte `offset`; returns the bytes written.
   * Synchronous: a 'made' column copies rows its pipeline has made ready for (indices, epoch).
   */
  gather(indices: ArrayLike<number>, out: Uint8Array, offset: number, epoch?: number): number;
  /** All values as one array in row order (label checks, class weights): labels and weights only. */
  toArray(): NdArray;
  /** A 'made' column's labels, checked as each row is made: `ok` every value, else a DataError naming `expected`. */
  checkEach?(ok: (v: number) => boolean, expected: string): void;
}

/** Rows made on demand (decoding, augmenting): prepared ahead of the step that stages them. */
export interface RowPipeline {
  /** Starts making these rows (augmentation draws from (seed, epoch, row)); returns at once. */
  prefetch(indices: Uint32Array, epoch: number): void;
  /** Resolves when gather() can copy them; rejects with a bad row's DataError. */
  ready(indices: Uint32Array, epoch: number): Promise<void>;
  isReady(indices: Uint32Array, epoch: number): boolean;
  /**
   * With data.onBadSample: skip, ready() resolves though some rows could not be made: their
   * positions in `indices`, each with what went wrong (a file and what its decoder said).
   */
  failed?(indices: Uint32Array, epoch: number): { at: number; message: string }[];
  /**
   * The first of these rows still being made, as a message names it (`data.train: module m.mjs:
   * sample 5: get(5, ...)`): what a wait that ran out of time waited for; null when none is.
   */
  unsettled?(indices: Uint32Array, epoch: number): string | null;
  /** They were staged: what was made for them may go. */
  release(indices: Uint32Array, epoch: number): void;
  /** Ends the threads that make rows; may be called more than once (a hold-out split shares its pipeline). */
  close(): Promise<void>;
  /** The header's line: what is read, with how many threads, how far ahead. */
  describe(): string;
}

/** A column held whole in memory: its array too. */
export type HeldColumn = Column & NdArray;

/** Rows held whole in memory. */
export function memoryColumn(a: NdArray): HeldColumn {
  return {
    ...a,
    kind: 'memory',
    gather: (indices, out, offset) => gatherRows(a, indices, out, offset),
    toArray: () => a,
  };
}

/** The in-memory array of a column that has one without copying (memory columns), else null. */
export function heldArray(c: Column): NdArray | null {
  return c.kind === 'memory' ? c.toArray() : null;
}

/**
 * Several columns of the same row shape and dtype as one, their rows one after another (the
 * files of `features: ./x-*.npy` in sorted order). `names` name each part in messages.
 */
export function joinedColumn(parts: Column[], names: string[], keyPath: string): Column {
  const first = parts[0]!;
  const row = first.shape.slice(1);
  parts.forEach((p, i) => {
    if (p.dtype !== first.dtype || p.shape.slice(1).join('x') !== row.join('x'))
      throw new DataError(
        `${keyPath}: ${names[i]} holds ${p.dtype} rows of shape [${p.shape.slice(1).join(', ')}] but ${names[0]} holds ${first.dtype} rows of shape [${row.join(', ')}]`,
        'every file of one pattern must hold rows of the same shape and dtype',
      );
  });
  const starts = [0];
  for (const p of parts) starts.push(starts.at(-1)! + p.shape[0]!);
  const count = starts.at(-1)!;
  const rb = rowBytes(first);
  let scratch = new Uint32Array(64); // the local indices of one piece, reused from call to call
  // The part holding row r: binary search over the starts.
  const partOf = (r: number): number => {
    let lo = 0;
    let hi = parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    dtype: first.dtype,
    shape: [count, ...row],
    kind: parts.every((p) => p.kind === 'memory') ? 'memory' : 'mapped',
    ...positionalOf(parts),
    gather: (indices, out, offset, epoch) =>
      copyRuns(indices, count, rb, out, offset, (r, rows, at) => {
        // A run of rows, cut where the parts meet; each piece a range of its part's own rows.
        for (let i = 0; i < rows;) {
          const p = partOf(r + i);
          const inPart = Math.min(rows - i, starts[p + 1]! - (r + i));
          if (scratch.length < inPart) scratch = new Uint32Array(inPart);
          const local = scratch.subarray(0, inPart);
          for (let j = 0; j < inPart; j++) local[j] = r + i + j - starts[p]!;
          parts[p]!.gather(local, out, at + i * rb, epoch);
          i += inPart;
        }
      }),
    toArray: () => {
      const data = new VIEWS[first.dtype](count * (rb / VIEWS[first.dtype].BYTES_PER_ELEMENT));
      const bytes = new Uint8Array(data.buffer);
      parts.forEach((p, i) => p.gather(range(p.shape[0]!), bytes, starts[i]! * rb));
      return { dtype: first.dtype, shape: [count, ...row], data };
    },
  };
}

/** Rows `rows` of `base`, in that order, as a column of their own (the hold-out split): no copy. */
export function pickedColumn(base: Column, rows: Uint32Array): Column {
  const rb = rowBytes(base);
  const shape = [rows.length, ...base.shape.slice(1)];
  const picked: Column = {
    dtype: base.dtype,
    shape,
    kind: base.kind,
    ...(base.positional ? { positional: base.positional } : {}),
    gather: (indices, out, offset, epoch) => {
      const mapped = new Uint32Array(indices.length);
      for (let i = 0; i < indices.length; i++) {
        const r = indices[i]!;
        if (!Number.isInteger(r) || r < 0 || r >= rows.length) throw new RangeError(`gather: row index ${r} is outside [0, ${rows.length})`);
        mapped[i] = rows[r]!;
      }
      return base.gather(mapped, out, offset, epoch);
    },
    toArray: () => {
      const data = new VIEWS[base.dtype](rows.length * (rb / VIEWS[base.dtype].BYTES_PER_ELEMENT));
      base.gather(rows, new Uint8Array(data.buffer), 0);
      return { dtype: base.dtype, shape, data };
    },
    ...(base.checkEach ? { checkEach: base.checkEach.bind(base) } : {}),
  };
  return picked;
}

/** A pipeline seen through `pickedColumn(_, rows)`: its indices are positions in `rows`. */
export function pickedPipeline(p: RowPipeline, rows: Uint32Array): RowPipeline {
  const base = (indices: Uint32Array) => indices.map((i) => rows[i]!);
  return {
    prefetch: (indices, epoch) => p.prefetch(base(indices), epoch),
    ready: (indices, epoch) => p.ready(base(indices), epoch),
    isReady: (indices, epoch) => p.isReady(base(indices), epoch),
    release: (indices, epoch) => p.release(base(indices), epoch),
    ...(p.failed ? { failed: (indices: Uint32Array, epoch: number) => p.failed!(base(indices), epoch) } : {}),
    ...(p.unsettled ? { unsettled: (indices: Uint32Array, epoch: number) => p.unsettled!(base(indices), epoch) } : {}),
    close: () => p.close(),
    describe: () => p.describe(),
  };
}

/** [0, 1, ..., n - 1]. */
export function range(n: number): Uint32Array {
  const r = new Uint32Array(n);
  for (let i = 0; i < n; i++) r[i] = i;
  return r;
}

/** A column made by a pipeline has no whole array: asking for one is a bug here. */
export function noWholeArray(what: string): never {
  throw new MgpuError('E_INTERNAL', `${what}: a column made on demand has no whole array (only labels and weights are read whole)`);
}

/** Whether the mapped parts of a joined column are read with pread: all, some, or none (no key). */
function positionalOf(parts: Column[]): { positional?: 'all' | 'some' } {
  const mapped = parts.filter((p) => p.kind === 'mapped');
  const by = mapped.filter((p) => p.positional);
  if (by.length === 0) return {};
  return { positional: by.length === mapped.length && by.every((p) => p.positional === 'all') ? 'all' : 'some' };
}
