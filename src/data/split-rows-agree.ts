// The train and eval splits are staged through one row layout: each part (an input's features,
// an output's labels, the weights) must have one dtype and one row shape in both. A mismatch
// names the part, both files and both dtypes or shapes.
import type { RowFormat, RowPart } from '../shared/protocol.ts';
import { DataError } from '../shared/errors.ts';
import { inputArrays, targetArrays } from './parts.ts';
import type { Dataset } from './rows.ts';

/** What a part is, for messages: "features", "labels 'class'" (`several` inputs or outputs), "sample weights". */
function partName(p: RowPart, several: boolean): string {
  if (p.role === 'weight') return 'sample weights';
  return `${p.role === 'input' ? 'features' : 'labels'}${several ? ` '${p.name}'` : ''}`;
}

/** The file (or source) a split's part was read from. */
function partFile(ds: Dataset, p: RowPart): string {
  if (p.role === 'weight') return ds.source;
  const arrays = p.role === 'input' ? inputArrays(ds) : targetArrays(ds);
  return (arrays.find((a) => a.name === p.name) ?? arrays[0]!).file;
}

/** Every split's rows (rowsAll[i] of data[i], named keys[i]) laid out as the first split's. */
export function checkSplitRowsAgree(rowsAll: RowFormat[], data: Dataset[], keys: string[]): void {
  const first = rowsAll[0]!;
  const count = (role: RowPart['role']) => first.parts.filter((p) => p.role === role).length;
  const several = count('input') > 1 || count('target') > 1;
  rowsAll.slice(1).forEach((rows, j) => {
    const i = j + 1;
    first.parts.forEach((p, k) => {
      const q = rows.parts[k]!;
      const mine = `${keys[i]}'s ${partName(q, several)} (${partFile(data[i]!, q)})`;
      const theirs = `${keys[0]}'s (${partFile(data[0]!, p)})`;
      if (q.dtype !== p.dtype) {
        throw new DataError(
          `${mine} are ${q.dtype} but ${theirs} are ${p.dtype}`,
          `save both splits' ${partName(p, several)} with one dtype (e.g. both ${p.dtype})`,
        );
      }
      if (q.shape.join('x') !== p.shape.join('x')) {
        throw new DataError(
          `${mine} have rows of shape [${q.shape.join(', ')}] but ${theirs} have [${p.shape.join(', ')}]`,
          `give both splits' ${partName(p, several)} one row shape`,
        );
      }
    });
  });
}
