// An .npy file as a column read through the page cache, never into the heap: the file is mapped
// (MAP_PRIVATE, read-only use) by the project's mmap addon, so start-up reads only its header and
// a step touches only the pages of its batch's rows; the kernel keeps or drops those pages as
// memory allows, so a file larger than the machine's memory trains. Where the addon is missing
// (MGPU_MMAP=0, no compiler at install), rows are read with pread per run of consecutive rows:
// slower, the same bytes. Either way from the descriptor opened at start-up, and a file cut short
// during the run is a DataError naming it (data-file-rows.ts: the copy out of the mapping is
// guarded against SIGBUS). A stored dtype that needs converting (float64, int64, ...) is read
// into memory as before: save such files as float32, int32 or uint8 to map them.
//
// NaN and infinite features cannot be looked for at start-up without reading the whole file:
// a mapped float32 column checks the rows it copies, so the error names the sample when its
// batch is staged.
import { DataError } from '../shared/errors.ts';
import { npyLayout, readNpy, VIEWS, type NdArray } from '../shared/npy.ts';
import { memoryColumn, type Column } from './columns.ts';
import { ByteRuns, openDataFile } from './data-file-rows.ts';
import { copyRuns, rowBytes } from './row-copy.ts';

/** `file` as a column; `keyPath` (e.g. `data.train`) names it in errors; `features`: check its rows for NaN. */
export function mappedNpy(file: string, keyPath: string, features: boolean): Column {
  const layout = npyLayout(file);
  const dtype = layout.view;
  if (dtype === null || layout.shape.length === 0) return memoryColumn(readNpy(file));
  const shape = layout.shape;
  const count = shape[0]!;
  const rb = rowBytes({ dtype, shape });
  const rows = openDataFile(file, layout.fileBytes);
  const checkRows = features && dtype === 'float32' ? finiteCheck(file, keyPath, count, rb / 4) : null;
  const runs = new ByteRuns(); // reused from call to call
  const gather = (indices: ArrayLike<number>, out: Uint8Array, offset: number): number => {
    runs.count = 0;
    const wrote = copyRuns(indices, count, rb, out, offset, (first, n, at) => runs.add(n * rb, layout.dataAt + first * rb, at));
    rows.copy(out, runs);
    const v = runs.values;
    for (let i = 0; checkRows && i < runs.count; i++) checkRows(out.subarray(v[3 * i + 2], v[3 * i + 2]! + v[3 * i]!), (v[3 * i + 1]! - layout.dataAt) / rb);
    return wrote;
  };
  return {
    dtype,
    shape,
    kind: 'mapped',
    ...(rows.mapped ? {} : { positional: 'all' as const }),
    ...(layout.stored === dtype ? {} : { storedAs: layout.stored }),
    gather,
    toArray: (): NdArray => {
      // Copied out (labels and weights, read whole for their checks), as the rows are: a view
      // over the mapping would be read unguarded.
      const data = new VIEWS[dtype]((count * rb) / VIEWS[dtype].BYTES_PER_ELEMENT);
      const whole = new ByteRuns();
      whole.add(count * rb, layout.dataAt, 0);
      rows.copy(new Uint8Array(data.buffer), whole);
      return { dtype, shape, data };
    },
  };
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
