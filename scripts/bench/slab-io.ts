// How fast bytes move into and out of the slab, each way the project can move them:
//   memcpy            Float32Array.set between two arrays in process memory (the ceiling)
//   positional read   fs.readSync with a position (pread) from the slab into a process array
//   positional write  fs.writeSync with a position (pwrite) from a process array into the slab
//   mapped read       Float32Array over the mapping, .set into a process array
//   mapped write      a process array .set into a Float32Array over the mapping
//   mapped write, fresh mapping   the same, through a new mapping each run (page-table faults)
// Each is timed over the whole buffer, several times after a warm-up; the table shows the median.
//
//   node --import tsx scripts/bench/slab-io.ts [--mb 100] [--runs 7] [--dir /dev/shm]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadMmap, mmapUnavailableReason } from '../../src/shared/mapped-memory.ts';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    runs: { type: 'string', default: '7' },
    dir: { type: 'string', default: fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir() },
  },
});
const bytes = Math.round((Number(values.mb) * 1e6) / 4096) * 4096;
const runs = Math.max(1, Number(values.runs));
const MAX_IO = 0x40000000;

const file = path.join(values.dir, `mgpu-bench-${process.pid}`);
const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
fs.unlinkSync(file);
fs.ftruncateSync(fd, bytes);

const local = new Float32Array(bytes / 4);
const other = new Float32Array(bytes / 4);
for (let i = 0; i < local.length; i++) local[i] = i;
const localBytes = new Uint8Array(local.buffer);

function pwrite(from: Uint8Array): void {
  for (let done = 0; done < from.length;) {
    done += fs.writeSync(fd, from, done, Math.min(MAX_IO, from.length - done), done);
  }
}
function pread(into: Uint8Array): void {
  for (let done = 0; done < into.length;) {
    const n = fs.readSync(fd, into, done, Math.min(MAX_IO, into.length - done), done);
    if (n === 0) throw new Error('short read');
    done += n;
  }
}
pwrite(localBytes); // every page of the slab exists before anything is timed

/** Median GB/s (1e9 bytes per second) of `runs` timed calls after one untimed. */
function measure(fn: () => void): { gbs: number; min: number; max: number } {
  fn();
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    rates.push(bytes / s / 1e9);
  }
  rates.sort((a, b) => a - b);
  return { gbs: rates[Math.floor(rates.length / 2)]!, min: rates[0]!, max: rates[rates.length - 1]! };
}

const rows: Array<[string, ReturnType<typeof measure> | string]> = [];
rows.push(['memcpy (Float32Array.set, process memory)', measure(() => other.set(local))]);
rows.push(['positional read (pread)', measure(() => pread(new Uint8Array(other.buffer)))]);
rows.push(['positional write (pwrite)', measure(() => pwrite(localBytes))]);

const mm = loadMmap();
if (mm) {
  const mapped = new Float32Array(mm.map(fd, 0, bytes));
  rows.push(['mapped read (.set from the mapping)', measure(() => other.set(mapped))]);
  rows.push(['mapped write (.set into the mapping)', measure(() => mapped.set(local))]);
  rows.push(['mapped write, fresh mapping each run', measure(() => new Float32Array(mm.map(fd, 0, bytes)).set(local))]);
  // The check that the mapping is the slab: what went in through it comes out through pread.
  const back = new Float32Array(bytes / 4);
  pread(new Uint8Array(back.buffer));
  if (back[12345] !== local[12345] || back[back.length - 1] !== local[local.length - 1]) throw new Error('the mapping and pread disagree');
} else {
  rows.push(['mapped read / write', `unavailable: ${mmapUnavailableReason}`]);
}
fs.closeSync(fd);

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `slab I/O, ${(bytes / 1e6).toFixed(0)} MB in ${values.dir}, median of ${runs} runs (after one warm-up); Node ${process.version}, ${cpu}, ${os.cpus().length} cores\n`,
);
console.log('| operation | GB/s (median) | min–max |');
console.log('|---|---:|---:|');
for (const [name, r] of rows) {
  if (typeof r === 'string') console.log(`| ${name} | ${r} | |`);
  else console.log(`| ${name} | ${r.gbs.toFixed(2)} | ${r.min.toFixed(2)}–${r.max.toFixed(2)} |`);
}
