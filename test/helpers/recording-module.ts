// A map-style data module that writes every get() it is asked for into a file of its process's
// MPI rank (`<dir>/gets-<rank>.txt`, a line "<split> <epoch> <index>"), and throws for the
// samples in `bad`: what each machine made, for the tests of which machine reads which rows.
import fs from 'node:fs';
import path from 'node:path';
import { FEATURES } from './train-fixture.ts';

export interface Get {
  split: string;
  epoch: number;
  index: number;
}

export function writeRecordingModule(dir: string, name: string, length: number, bad: number[] = []): string {
  const file = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(
    file,
    `import fs from 'node:fs';
const log = ${JSON.stringify(path.join(dir, `${name}-gets-`))} + (process.env.OMPI_COMM_WORLD_RANK ?? 'solo') + '.txt';
const bad = new Set(${JSON.stringify(bad)});
export default {
  length: ${length},
  get(i, { epoch, split }) {
    fs.appendFileSync(log, split + ' ' + epoch + ' ' + i + '\\n');
    if (bad.has(i)) throw new Error('record ' + i + ' is corrupt');
    return { x: Array.from({ length: ${FEATURES} }, (_, k) => ((i * 7 + k) % 5) / 5 - 0.4), y: i % 3 };
  },
};
`,
  );
  return file;
}

/** The get() calls the module named `name` wrote for `rank` ('solo': not under MPI). */
export function getsOf(dir: string, name: string, rank: number | 'solo'): Get[] {
  const file = path.join(dir, `${name}-gets-${rank}.txt`);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [split, epoch, index] = l.split(' ');
      return { split: split!, epoch: Number(epoch), index: Number(index) };
    });
}
