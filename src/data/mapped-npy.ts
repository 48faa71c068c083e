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
import { npyLayout, readNpy, type NdArray } from '../shared/npy.ts';
import { columnRowBytes, memoryColumn, readFully, type Column } from './columns.ts';
import { copyRuns } from './rows.ts';

const VIEWS = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array };

/** `file` as a column; `keyPath` (e.g. `data.train`) names it in errors; `features`: check its rows for NaN. */
export function mappedNpy(file: string, keyPath: string, features: boolean): Column {
  const layout = npyLayout(file);
  const dtype = layout.view;
  if (dtype === null || layout.shape.length === 0) return memoryColumn(readNpy(file));
  const shape = layout.shape;
  const count = shape[0]!;
  const rb = columnRowBytes({ dtype, shape });
  const bytes = mappedBytes(file, layout.fileBytes);
  const checkRows = features && dtype === 'float32' ? finiteCheck(file, keyPath, rb / 4) : null;
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
    readFully(fd, dest, position, file);
  } finally {
    fs.closeSync(fd);
  }
}

/** Checks the float32 rows just copied (`bytes`, rows from `first`) for NaN and infinities. */
function finiteCheck(file: string, keyPath: string, perRow: number): (bytes: Uint8Array, first: number) => void {
  return (bytes, first) => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < bytes.byteLength; i += 4) {
      const v = view.getFloat32(i, true);
      if (Number.isFinite(v)) continue;
      const k = i / 4;
      throw new DataError(
        `${keyPath}: feature ${k % perRow} of sample ${first + Math.floor(k / perRow)} in ${file} is ${v}`,
        'clean or impute the features before training',
      );
    }
  };
}
