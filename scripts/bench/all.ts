// npm run bench: the kept benchmarks, one after the other, each printing its table and saving JSON
// in bench-results/; what each measures and its command: docs/performance.md (the table at its top).
// What `mgpu-train benchmark` measures (a model's images/s on 1..N workers, its scaling, plain
// tfjs beside it, where a step goes) is not repeated here: these measure what it does not. Not a
// test: nothing here asserts a time.
//   npm run bench [-- --max-workers N] [--workers 1,2,4,8]   (default: every core; the scaling tables
//   go up to N, through every count or the listed ones)
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { trySharp } from '../../src/data/images/sharp-module.ts';

const { values } = parseArgs({ options: { 'max-workers': { type: 'string' }, workers: { type: 'string' } } });
const scaling = [...(values['max-workers'] ? ['--max-workers', values['max-workers']] : []), ...(values.workers ? ['--workers', values.workers] : [])];
const benches: [string, string[]][] = [
  // The MLP's scaling against the free-running ceiling, both wasm kernel sets; weak and strong scaling.
  ['scaling.ts', scaling],
  ['weak-strong.ts', scaling],
  // A 20M-parameter model's step by phase (check:gpu runs the same on a GPU).
  ['big-model-step.ts', []],
  // Bytes into and out of the slab, each way the project can move them, against memcpy.
  ['slab-io.ts', []],
  // Convolutional networks by name against PyTorch and DDP (Debian's python3-torch, installed when missing).
  ['cnn-vs-pytorch.ts', []],
];
// Where sharp loads (an optional dependency): shards and the folder they came from against
// torchvision's DataLoader, and TFRecord shards over HTTP on loopback against local files.
if (!(trySharp() instanceof Error)) benches.push(['shards-read.ts', []], ['shards-http.ts', []]);
else console.log('\n(sharp does not load: the image and shard benchmarks are left out)');
// Where mpirun and the binding are there: the allreduce over TCP, overlapped or not, against
// Open MPI's own from C (in two network namespaces as root; it says why when it cannot).
if (spawnSync('mpirun', ['--version']).status === 0) benches.push(['mpi-overlap.ts', []]);
else console.log('\n(no mpirun: the allreduce benchmark is left out)');
for (const [script, args] of benches) {
  execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], { stdio: 'inherit' });
}
