// The memory an image folder costs the coordinator before any image is decoded: its index
// (paths and labels) for a folder of N files in 100 class folders, measured as the heap and
// RSS growth over indexing it, beside what holding the split's decoded rows would take (what a
// whole-split loader needs: N x 224 x 224 x 3 bytes as uint8, 4x that as float32). The files
// are empty (indexing reads names, not images).
//   node --import tsx scripts/bench/images-index.ts [--files 100000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { files: { type: 'string', default: '100000' } } });
const N = Number(values.files);
const dir = path.join(os.tmpdir(), `mgpu-bench-index-${N}`);
if (!fs.existsSync(path.join(dir, '.complete'))) {
  for (let i = 0; i < N; i++) {
    const d = path.join(dir, `class-${String(i % 100).padStart(3, '0')}`);
    if (i < 100) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, `image-${String(i).padStart(7, '0')}.jpg`), '');
  }
  fs.writeFileSync(path.join(dir, '.complete'), '');
}
v8.setFlagsFromString('--expose-gc'); // for a collection before each reading
const gc = vm.runInNewContext('gc') as () => void;
gc();
const before = process.memoryUsage();
const t = performance.now();
const ix = indexFolder(dir, 'bench', ['.jpg'], null);
const ms = performance.now() - t;
gc();
const after = process.memoryUsage();
const mib = (b: number) => (b / 2 ** 20).toFixed(1);
const rows = [
  {
    what: `index of ${ix.paths.count.toLocaleString('en-US')} files (heap growth)`,
    MiB: mib(after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers),
    ms: Math.round(ms),
  },
  { what: 'index (RSS growth)', MiB: mib(after.rss - before.rss), ms: '' },
  { what: 'the same split decoded whole, uint8 224x224x3', MiB: mib(N * 224 * 224 * 3), ms: '' },
  { what: 'the same split decoded whole, float32 224x224x3', MiB: mib(N * 224 * 224 * 3 * 4), ms: '' },
];
printTable(`Image folder index: ${N.toLocaleString('en-US')} files in 100 classes (${path.basename(dir)})`, rows);
saveJson('images-index', rows);
