// Preloaded into every Node process of a benchmark run (NODE_OPTIONS=--import=<this file>): at
// its exit, the main thread appends one line to $MGPU_IO_REPORT with its pid, its arguments and
// what the kernel counted it reading (/proc/self/io: rchar, every read/pread of every thread,
// from the page cache or not; read_bytes, what came from the disk).
import fs from 'node:fs';
import process from 'node:process';
import { isMainThread } from 'node:worker_threads';

const report = process.env.MGPU_IO_REPORT;
if (report && isMainThread) {
  process.on('exit', () => {
    const io = fs.readFileSync('/proc/self/io', 'utf8');
    const field = (/** @type {string} */ name) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    const line = { pid: process.pid, argv: process.argv.slice(1), rchar: field('rchar'), readBytes: field('read_bytes') };
    fs.appendFileSync(report, `${JSON.stringify(line)}\n`);
  });
}
