// CSV files with class-name labels, made from train-fixture.ts's seeded datasets: the features
// of writeDataset(..., 'index', seed) and, in the label column, `names[index]` instead of the
// index. The same rows can be written with integer labels, for a parity check.
import fs from 'node:fs';
import path from 'node:path';
import { readNpy } from '../../src/shared/npy.ts';
import { FEATURES, writeDataset } from './train-fixture.ts';

/** Names for the fixture's 3 classes, in index order; sorted they are [ant, "cat, wild", zebra]. */
export const NAMES = ['zebra', 'ant', 'cat, wild'];

const field = (t: string) => (/[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);

export interface ClassCsv {
  path: string;
  /** The fixture's class index of each row (index into `names`). */
  index: Int32Array;
  /** The label text of each row. */
  labels: string[];
  x: Float32Array;
}

/**
 * Writes `<dir>/<name>.csv`: a header `f0,...,f5,label`, then the rows of the fixture's dataset
 * with label `label(index)`; default the class name `names[index]`.
 */
export function writeClassCsv(
  dir: string,
  name: string,
  count: number,
  seed: number,
  opts: { names?: string[]; label?: (index: number) => string; rows?: (i: number) => boolean } = {},
): ClassCsv {
  const names = opts.names ?? NAMES;
  const src = writeDataset(dir, `${name}-src`, count, 'index', seed);
  const x = readNpy(src.features).data as Float32Array;
  const y = readNpy(src.labels).data as Int32Array;
  const label = opts.label ?? ((c: number) => names[c]!);
  const keep = opts.rows ?? (() => true);
  const lines = [[...Array.from({ length: FEATURES }, (_, f) => `f${f}`), 'label'].join(',')];
  const index: number[] = [];
  const labels: string[] = [];
  const kept: number[] = [];
  for (let i = 0; i < count; i++) {
    if (!keep(i)) continue;
    const row = Array.from(x.subarray(i * FEATURES, (i + 1) * FEATURES), (v) => String(v));
    lines.push([...row, field(label(y[i]!))].join(','));
    index.push(y[i]!);
    labels.push(label(y[i]!));
    kept.push(i);
  }
  const file = path.join(dir, `${name}.csv`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const xs = new Float32Array(kept.length * FEATURES);
  kept.forEach((i, k) => xs.set(x.subarray(i * FEATURES, (i + 1) * FEATURES), k * FEATURES));
  return { path: file, index: Int32Array.from(index), labels, x: xs };
}
