// The coordinator's memory while it trains on an .npy larger than a small one: peak anonymous RSS
// (the heap, what a memory limit counts first), peak file-backed RSS (the mapped file's pages in
// the page cache, which the kernel drops under pressure) and the start-up time, for a small file
// and for one of --gib GiB (default 1), on 2 simulated workers. A mapped file adds only file pages:
// the anonymous peak stays that of the small file, plus the batches in flight. With --limit-mib M
// the large run is also made under a memory cgroup of M MiB (v1, as root), where a split read
// whole into the heap is killed by the kernel.
//   node --import tsx scripts/bench/data-memory.ts [--gib 1] [--limit-mib 1200] [--bin <other checkout>/bin/mgpu-train.mjs]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { gib: { type: 'string' }, 'limit-mib': { type: 'string' }, bin: { type: 'string' } } });
// --bin: another checkout's bin/mgpu-train.mjs, to measure an older version the same way.
const BIN = values.bin ? path.resolve(values.bin) : fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const FEATURES = 784;
const CLASSES = 10;

/** An .npy header (format 1.0) for float32 data of `shape`, padded to 64 bytes as numpy pads it. */
function header(shape: number[]): Buffer {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const len = Math.ceil((10 + dict.length + 1) / 64) * 64 - 10;
  const h = Buffer.alloc(10 + len, 0x20);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(h);
  h.writeUInt16LE(len, 8);
  h.write(dict, 10, 'latin1');
  h[10 + len - 1] = 0x0a;
  return h;
}

/** Writes x.npy (float32 [rows, 784], seeded noise) and y.npy (one-hot [rows, 10]) a chunk at a time. */
function writeData(dir: string, rows: number): void {
  const x = fs.openSync(path.join(dir, 'x.npy'), 'w');
  const y = fs.openSync(path.join(dir, 'y.npy'), 'w');
  fs.writeSync(x, header([rows, FEATURES]));
  fs.writeSync(y, header([rows, CLASSES]));
  const chunk = 4096;
  let s = 12345;
  for (let r = 0; r < rows; r += chunk) {
    const n = Math.min(chunk, rows - r);
    const xs = new Float32Array(n * FEATURES);
    for (let i = 0; i < xs.length; i++) xs[i] = ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const ys = new Float32Array(n * CLASSES);
    for (let i = 0; i < n; i++) ys[i * CLASSES + ((r + i) % CLASSES)] = 1;
    fs.writeSync(x, new Uint8Array(xs.buffer));
    fs.writeSync(y, new Uint8Array(ys.buffer));
  }
  fs.closeSync(x);
  fs.closeSync(y);
}

interface Figures {
  file_mib: number;
  startup_s: number;
  peak_anon_mib: number;
  peak_file_mib: number;
  exit: string;
}

/** Trains 40 steps of batch 256 and samples the coordinator's /proc/<pid>/status every 20 ms. */
async function measure(dir: string, cgroup: string | null): Promise<Figures> {
  fs.writeFileSync(
    path.join(dir, 'model.mjs'),
    "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [784], units: 32, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })] });\n",
  );
  fs.writeFileSync(
    path.join(dir, 'exp.yaml'),
    `model: { module: ./model.mjs }\nloss: categoricalCrossentropy\ndata: { train: { type: npy, features: ./x.npy, labels: ./y.npy } }\ntraining: { batchSize: 256, steps: 40 }\noptimizer: { name: sgd }\nlog: { every: 10 }\n`,
  );
  const args = [BIN, 'train', path.join(dir, 'exp.yaml'), '--simulate', '2', '--overwrite', '--run-dir', path.join(dir, 'run')];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (cgroup) fs.writeFileSync(path.join(cgroup, 'cgroup.procs'), `${child.pid}\n`); // its workers start later, inside
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let anon = 0;
  let file = 0;
  const poll = setInterval(() => {
    try {
      const st = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      anon = Math.max(anon, Number(/RssAnon:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
      file = Math.max(file, Number(/RssFile:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
    } catch {
      // gone
    }
  }, 20);
  const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  clearInterval(poll);
  const startup = Number(/start-up ([\d.]+) s/.exec(out)?.[1] ?? NaN);
  return {
    file_mib: Math.round(fs.statSync(path.join(dir, 'x.npy')).size / 2 ** 20),
    startup_s: startup,
    peak_anon_mib: Math.round(anon),
    peak_file_mib: Math.round(file),
    exit: signal ? `killed (${signal})` : code === 0 ? 'ok' : `exit ${code}: ${out.trim().split('\n').at(-1) ?? ''}`,
  };
}

function makeCgroup(limitMiB: number): string | null {
  const root = '/sys/fs/cgroup/memory';
  if (!fs.existsSync(root) || process.getuid?.() !== 0) return null;
  const dir = path.join(root, `mgpu-bench-${process.pid}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitMiB * 2 ** 20));
  return dir;
}

const gib = Number(values.gib ?? 1);
const rows: Array<Record<string, string | number>> = [];
const small = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-mem-small-'));
const large = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-mem-large-'));
try {
  writeData(small, 4096);
  writeData(large, Math.round((gib * 2 ** 30) / (FEATURES * 4)));
  rows.push({ data: 'small .npy', ...(await measure(small, null)) });
  rows.push({ data: `${gib} GiB .npy`, ...(await measure(large, null)) });
  const limit = values['limit-mib'] ? Number(values['limit-mib']) : null;
  const cg = limit ? makeCgroup(limit) : null;
  if (limit && !cg) console.log(`(no memory cgroup here, as root under /sys/fs/cgroup/memory: the ${limit} MiB run is left out)`);
  if (cg) {
    try {
      rows.push({ data: `${gib} GiB .npy, ${limit} MiB limit`, ...(await measure(large, cg)) });
    } finally {
      fs.rmdirSync(cg);
    }
  }
} finally {
  fs.rmSync(small, { recursive: true, force: true });
  fs.rmSync(large, { recursive: true, force: true });
}
printTable('coordinator memory on a mapped .npy (2 simulated workers, batch 256, 40 steps)', rows);
console.log(`saved ${saveJson('data-memory', rows)}`);
