// An .npy file as a column read through the page cache, never into the heap: the file is mapped
// (MAP_PRIVATE, read-only use) by the project's mmap addon, so start-up reads only its header and
// a step touches only the pages of its batch's rows; the kernel keeps or drops those pages as
// memory allows, so a file larger than the machine's memory trains. Where the addon is missing
// (MGPU_MMAP=0, no compiler at install), rows are read with pread per run of consecutive rows:
// slower, the same bytes. A stored dtype that needs converting (float64, int64, ...) is read
// into memory as before: save such files as float32, int32 or uint8 to map them.
//
// NaN and infinite features cannot be looked for at start-up without reading the whole file:
// a mapped float32 column checks the rows it copies, so the error names the sample when its
// batch is staged.
import fs from 'node:fs';
import { DataError } from '../shared/errors.ts';
import { loadMmap } from '../shared/mapped-memory.ts';
import { npyLayout, readNpy, VIEWS, type NdArray } from '../shared/npy.ts';
import { readFully } from '../shared/read-fully.ts';
import { memoryColumn, type Column } from './columns.ts';
import { copyRuns, rowBytes } from './row-copy.ts';

/** `file` as a column; `keyPath` (e.g. `data.train`) names it in errors; `features`: check its rows for NaN. */
export function mappedNpy(file: string, keyPath: string, features: boolean): Column {
  const layout = npyLayout(file);
  const dtype = layout.view;
  if (dtype === null || layout.shape.length === 0) return memoryColumn(readNpy(file));
  const shape = layout.shape;
  const count = shape[0]!;
  const rb = rowBytes({ dtype, shape });
  const bytes = mappedBytes(file, layout.fileBytes);
  const checkRows = features && dtype === 'float32' ? finiteCheck(file, keyPath, count, rb / 4) : null;
  const gather = (indices: ArrayLike<number>, out: Uint8Array, offset: number): number =>
    copyRuns(indices, count, rb, out, offset, (first, rows, at) => {
      const dest = out.subarray(at, at + rows * rb);
      if (bytes) dest.set(new Uint8Array(bytes, layout.dataAt + first * rb, rows * rb));
      else readRows(file, dest, layout.dataAt + first * rb);
      checkRows?.(dest, first);
    });
  return {
    dtype,
    shape,
    kind: 'mapped',
    ...(bytes ? {} : { positional: 'all' as const }),
    ...(layout.stored === dtype ? {} : { storedAs: layout.stored }),
    gather,
    toArray: (): NdArray => {
      const n = shape.reduce((a, b) => a * b, 1);
      // Over the mapped pages, no copy (labels and weights); read whole without the addon.
      return bytes ? { dtype, shape, data: new VIEWS[dtype](bytes, layout.dataAt, n) } : readNpy(file);
    },
  };
}

/** The file's pages as an ArrayBuffer (the descriptor is closed at once; the mapping stays); null without the addon. */
function mappedBytes(file: string, fileBytes: number): ArrayBuffer | null {
  const mm = loadMmap();
  if (!mm || fileBytes === 0) return null;
  const page = mm.pageSize();
  const fd = fs.openSync(file, 'r');
  try {
    return mm.mapPrivate(fd, 0, Math.ceil(fileBytes / page) * page);
  } catch {
    return null; // a filesystem that cannot map (some FUSE mounts): read with pread instead
  } finally {
    fs.closeSync(fd);
  }
}

function readRows(file: string, dest: Uint8Array, position: number): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new DataError(
      `${file}: cannot be read any more (${(err as NodeJS.ErrnoException).code ?? String(err)}); it was there at start-up`,
      'do not move or delete a data file during a run',
    );
  }
  try {
    readFully(fd, dest, position, {
      file,
      why: 'it shrank while the run was reading it',
      error: (m) => new DataError(m, 'do not change a data file during a run'),
    });
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks the float32 rows just copied (`bytes`, rows from `first`) for NaN and infinities, each
 * row once in the run (a bit per row remembers it): after the first epoch the check is a bit test.
 */
function finiteCheck(file: string, keyPath: string, count: number, perRow: number): (bytes: Uint8Array, first: number) => void {
  const checked = new Uint8Array(Math.ceil(count / 8));
  return (bytes, first) => {
    const aligned = bytes.byteOffset % 4 === 0;
    const floats = aligned ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) : null;
    const view = aligned ? null : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const rows = bytes.byteLength / 4 / perRow;
    for (let r = 0; r < rows; r++) {
      const row = first + r;
      if (checked[row >> 3]! & (1 << (row & 7))) continue;
      for (let k = r * perRow; k < (r + 1) * perRow; k++) {
        const v = floats ? floats[k]! : view!.getFloat32(k * 4, true);
        if (!Number.isFinite(v))
          throw new DataError(`${keyPath}: feature ${k % perRow} of sample ${row} in ${file} is ${v}`, 'clean or impute the features before training');
      }
      checked[row >> 3]! |= 1 << (row & 7);
    }
  };
}
