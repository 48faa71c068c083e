// npm run bench: every benchmark, one after the other, each printing its table and saving JSON
// in bench-results/. Not a test: nothing here asserts a time.
//   npm run bench [-- --max-workers N] [--workers 1,2,4,8]   (default: every core; the scaling tables
//   go up to N, through every count or the listed ones)
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { trySharp } from '../../src/data/images/sharp-module.ts';

const { values } = parseArgs({ options: { 'max-workers': { type: 'string' }, workers: { type: 'string' } } });
const scaling = [...(values['max-workers'] ? ['--max-workers', values['max-workers']] : []), ...(values.workers ? ['--workers', values.workers] : [])];
const benches: [string, string[]][] = [
  ['scaling.ts', scaling],
  ['weak-strong.ts', scaling],
  ['sync.ts', []],
  ['big-model-step.ts', []],
  ['optimizer-update.ts', []],
  ['latency.ts', []],
  ['data-memory.ts', ['--limit-mib', '600']],
  ['map-style-threads.ts', []],
  // Convolutional networks by name against PyTorch and DDP (Debian's python3-torch, installed when missing).
  ['cnn-vs-pytorch.ts', []],
  // A record index of a million TFRecord records: its build and its memory.
  ['shards-index.ts', []],
];
// Image decoding beside torchvision: where sharp loads (an optional dependency).
// TFRecord shards over HTTP on loopback against local files (nginx when installed, else Node's server).
// Shards (TFRecord, WebDataset) against the folder they were made from and torchvision's DataLoader.
// The JPEG decoders (sharp, the native one) against PIL in CPU time per image as well.
if (!(trySharp() instanceof Error))
  benches.push(['images-decode.ts', []], ['jpeg-decoders.ts', []], ['images-index.ts', []], ['shards-read.ts', []], ['shards-http.ts', []]);
else console.log('\n(sharp does not load: the image decoding benchmark is left out)');
// Several machines (MPI ranks on this one, or in two network namespaces: mpi-overlap.ts,
// shards-machines.ts, which says why when it cannot run): where mpirun and the binding are there.
if (spawnSync('mpirun', ['--version']).status === 0) benches.push(['mpi.ts', []], ['mpi-overlap.ts', []], ['shards-machines.ts', ['--jpegs', '320']]);
else console.log('\n(no mpirun: the multi-machine benchmarks are left out)');
for (const [script, args] of benches) {
  execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], { stdio: 'inherit' });
}
