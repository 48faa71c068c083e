// Bytes each machine reads when 2 machines train from TFRecord shards (issue: "each machine reads
// only the records of its own workers' shards of each batch"): the 500x375 JPEGs of the decode
// benchmark written as TFRecord shards, one epoch trained (decoded to 32x32, a small dense
// model: the reading, not the model, is measured), by 1 machine x 2 workers and by 2 machines x
// 1 worker in the two-machine harness (network namespaces, MPI over TCP; scripts/two-machines.sh,
// as root). Each coordinator's reads are what the kernel counted (/proc/self/io rchar, every
// thread's read and pread, page cache or not: io-at-exit.mjs); an epoch's reads are those of a
// 2-epoch run less those of a 1-epoch run (the start-up's own reads, code and the index, are
// the same in both). Not a test: nothing here asserts.
//   node --import tsx scripts/bench/shards-machines.ts [--jpegs 640] [--batch 32]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TwoMachines, twoMachinesUnavailable } from '../../test/helpers/two-machines.ts';
import { benchFolder } from './images-folders.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { jpegs: { type: 'string', default: '640' }, batch: { type: 'string', default: '32' } } });
const JPEGS = Number(values.jpegs);
const BATCH = Number(values.batch);
const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./io-at-exit.mjs', import.meta.url));
const MiB = 2 ** 20;

const why = twoMachinesUnavailable();
if (why) {
  console.log(`(cannot run: ${why})`);
  process.exit(0);
}
const folder = await benchFolder('jpeg', JPEGS);
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-machines-'));
const shardDir = path.join(out, 'shards');
execFileSync(process.execPath, [BIN, 'shards', folder.dir, shardDir, '--format', 'tfrecord', '--shard-size', '8MB', '--check', 'header'], { stdio: 'ignore' });
const shardBytes = fs
  .readdirSync(shardDir)
  .filter((f) => f.endsWith('.tfrecord'))
  .reduce((a, f) => a + fs.statSync(path.join(shardDir, f)).size, 0);
const model = path.join(out, 'model.mjs');
fs.writeFileSync(
  model,
  `export default (tf) => tf.sequential({ layers: [tf.layers.flatten({ inputShape: [32, 32, 3] }), tf.layers.dense({ units: 4, activation: 'softmax' })] });\n`,
);

const config = (name: string, workers: number, epochs: number) => {
  const file = path.join(out, `${name}.json`);
  const cfg = {
    model: { module: model },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: { type: 'tfrecord', files: path.join(shardDir, '*.tfrecord'), image: 'image/encoded', label: 'image/class/label', size: [32, 32] },
      threads: 1,
    },
    training: { batchSize: BATCH, seed: 1, epochs },
    optimizer: { name: 'sgd', learningRate: 0.01 },
    devices: { simulate: workers, backend: 'cpu' },
    runDir: path.join(out, 'runs', name),
  };
  fs.writeFileSync(file, JSON.stringify(cfg));
  return file;
};

const net = new TwoMachines(`${process.pid % 1_000_000}b`);
process.on('exit', () => net.down());
net.up();

/** The coordinators' rchar (by their host's order of exit lines) for one run. */
async function reads(name: string, machines: 1 | 2, epochs: number): Promise<number[]> {
  const report = path.join(out, `${name}.io.jsonl`);
  const env = ['-x', 'NODE_OPTIONS', '-x', 'MGPU_IO_REPORT'];
  process.env.NODE_OPTIONS = `--import=${PRELOAD}`;
  process.env.MGPU_IO_REPORT = report;
  Object.assign(net.env, { NODE_OPTIONS: process.env.NODE_OPTIONS, MGPU_IO_REPORT: report });
  const args = ['train', config(name, 2 / machines, epochs), '--overwrite'];
  const r =
    machines === 2 ? await net.launch(env, args, { timeoutMs: 600_000 }) : await net.run('node-a', [process.execPath, BIN, ...args], { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`${name}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const lines = fs
    .readFileSync(report, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { argv: string[]; rchar: number });
  // The coordinators: the processes that ran `train` (not `launch`, whose mpirun started them; workers run their own entry).
  return lines.filter((l) => l.argv.includes('train') && !l.argv.includes('launch')).map((l) => l.rchar);
}

await reads('warm', 1, 1); // builds the shards' index (a scan of every record), so no run below scans
const rows: Array<Record<string, string | number>> = [];
const json: Record<string, unknown>[] = [];
for (const machines of [1, 2] as const) {
  const one = await reads(`one-${machines}`, machines, 1);
  const two = await reads(`two-${machines}`, machines, 2);
  two.forEach((bytes, m) => {
    const epoch = bytes - one[m]!;
    rows.push({
      'machines x workers': `${machines} x ${2 / machines}`,
      machine: m,
      '2 epochs: read MiB': (bytes / MiB).toFixed(1),
      '1 epoch: read MiB': (one[m]! / MiB).toFixed(1),
      'an epoch (the difference) MiB': (epoch / MiB).toFixed(1),
      'x the shards': (epoch / shardBytes).toFixed(2),
    });
    json.push({ machines, machine: m, twoEpochs: bytes, oneEpoch: one[m], epoch, shardBytes });
  });
}
printTable(`${JPEGS} JPEGs 500x375 in TFRecord shards (${(shardBytes / MiB).toFixed(1)} MiB), global batch ${BATCH}: what each coordinator read`, rows);
saveJson('shards-machines', json);
fs.rmSync(out, { recursive: true, force: true });
