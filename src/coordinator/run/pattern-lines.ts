// The header's lines for .npy patterns (`features: ./x-*.npy`): what each matched, so a file
// left out or picked up by the pattern shows before step 0: the count, the first and last file,
// and the array they make together (dtype and shape).
import path from 'node:path';
import type { Dataset, NamedArray } from '../../data/rows.ts';

/** One line per pattern of the splits' features and labels, e.g. "features ./x-*.npy: 3 files, x-0.npy ... x-2.npy, float32 [90, 5]". */
export function patternLines(train: Dataset, evalSet: Dataset | null): string[] {
  const lines: string[] = [];
  for (const ds of evalSet && evalSet.inputs !== train.inputs ? [train, evalSet] : [train]) {
    for (const [what, arrays] of [
      ['features', ds.inputs ?? []],
      ['labels', ds.targets ?? []],
    ] as const) {
      for (const a of arrays) if (a.parts) lines.push(patternLine(what, a, a.parts));
    }
  }
  return lines;
}

function patternLine(what: string, a: NamedArray, parts: string[]): string {
  const name = a.name ? ` '${a.name}'` : '';
  const n = parts.length;
  const files = n === 1 ? `1 file, ${path.basename(parts[0]!)}` : `${n} files, ${path.basename(parts[0]!)} ... ${path.basename(parts[n - 1]!)}`;
  return `${what}${name} ${a.file}: ${files}, ${a.array.dtype} [${a.array.shape.join(', ')}]`;
}
