// Each worker_thread (and each piscina thread) loads the addon and maps the slab itself; what it
// writes is seen by the main thread, and the thread exits - normally, after dropping its mapping,
// or terminated while holding it - without crashing the process (the failure of the npm shm/mmap
// packages) and without leaving its mapping behind.
//
// This file is also the threads' code: a raw worker runs the branch at the bottom, and a piscina
// thread calls the default export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { loadMmap, mmapUnavailableReason } from '../../src/shared/mapped-memory.ts';
import { execArgvFor } from '../../src/shared/runtime.ts';
import { nativeSkip } from '../helpers/native.ts';

interface Job {
  fd: number;
  bytes: number; // mapped length (whole pages)
  start: number; // first float written
  count: number;
  value: number;
  mode: 'hold' | 'gc' | 'terminate';
}

const MARK = `mgpu-mmap-thread-${process.pid}`;

async function collect(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A piscina task: map, write, drop. */
export default function writeSlice(job: Job): number {
  const mm = loadMmap();
  if (!mm) throw new Error(`no mmap addon in this thread: ${mmapUnavailableReason}`);
  new Float32Array(mm.map(job.fd, 0, job.bytes)).fill(job.value, job.start, job.start + job.count);
  return job.count;
}

function mappingsOfTestFiles(): number {
  return fs
    .readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .filter((l) => l.includes(MARK)).length;
}

function slabFile(size: number): number {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const file = `${dir}/${MARK}-${Math.random().toString(36).slice(2)}`;
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  fs.unlinkSync(file);
  fs.ftruncateSync(fd, size);
  return fd;
}

// A raw worker's entry is an ES module, and Node 20 (checked on 20.20) does not apply tsx's ESM
// hooks from `--import tsx` in a Worker's execArgv to it (only tsx's require hooks take effect
// there): so the entry registers tsx itself, then imports this file.
function bootstrap(): string {
  return `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
}

function runThread(job: Job): Promise<number> {
  const worker = new Worker(bootstrap(), { eval: true, workerData: { mmapTestJob: job } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m) => {
      if (m === 'written' && job.mode === 'terminate') void worker.terminate();
    });
    worker.once('exit', resolve);
  });
}

// No top-level await in this file: piscina loads it with require() (through tsx's require
// hooks), as it loads the reduce thread.
if (!isMainThread && workerData?.mmapTestJob) {
  void (async () => {
    const job = workerData.mmapTestJob as Job;
    const mm = loadMmap();
    if (!mm) throw new Error(`no mmap addon in this thread: ${mmapUnavailableReason}`);
    let view: Float32Array | null = new Float32Array(mm.map(job.fd, 0, job.bytes));
    view.fill(job.value, job.start, job.start + job.count);
    if (job.mode === 'gc') {
      view = null;
      await collect();
    } else {
      (globalThis as Record<string, unknown>).keepMapping = view; // still referenced at exit
    }
    parentPort!.postMessage('written');
    if (job.mode === 'terminate') setInterval(() => {}, 1000); // stays alive until terminated
  })();
}

if (isMainThread) {
  const mm = loadMmap();
  const skip = nativeSkip(mm ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);

  for (const mode of ['hold', 'gc', 'terminate'] as const) {
    test(`a worker_thread maps the fd, writes, and exits (${mode}); the main thread sees the write`, { skip }, async () => {
      const bytes = 16 * mm!.pageSize();
      const fd = slabFile(bytes);
      const code = await runThread({ fd, bytes, start: 100, count: 1000, value: 3.5, mode });
      assert.equal(code, mode === 'terminate' ? 1 : 0);
      const seen = new Float32Array(mm!.map(fd, 0, bytes));
      assert.equal(seen[99], 0);
      assert.ok(seen.subarray(100, 1100).every((v) => v === 3.5));
      assert.equal(seen[1100], 0);
      fs.closeSync(fd);
    });
  }

  test('six threads at once, two rounds, each its own slice; no mapping outlives its thread', { skip }, async () => {
    const threads = 6;
    const count = 4096;
    const bytes = threads * count * 4;
    const fd = slabFile(bytes);
    await collect();
    const before = mappingsOfTestFiles();
    for (let round = 1; round <= 2; round++) {
      const modes = ['hold', 'gc', 'terminate'] as const;
      const codes = await Promise.all(
        Array.from({ length: threads }, (_, t) => runThread({ fd, bytes, start: t * count, count, value: round * 100 + t, mode: modes[(t + round) % 3]! })),
      );
      codes.forEach((c, t) => assert.equal(c, modes[(t + round) % 3] === 'terminate' ? 1 : 0));
      const all = new Float32Array(bytes / 4);
      fs.readSync(fd, all, 0, bytes, 0);
      for (let t = 0; t < threads; t++) {
        assert.ok(
          all.subarray(t * count, (t + 1) * count).every((v) => v === round * 100 + t),
          `round ${round} thread ${t}`,
        );
      }
    }
    // The threads' mappings were unmapped at their exit (the address space is shared).
    assert.equal(mappingsOfTestFiles(), before);
    fs.closeSync(fd);
  });

  test('piscina threads load the addon, map and write; destroying the pool is clean', { skip }, async () => {
    const { Piscina } = await import('piscina');
    const bytes = 8 * mm!.pageSize();
    const fd = slabFile(bytes);
    // Started as the reduce pool starts its threads: this file's path, and the flags it needs (tsx: it is a .ts file).
    const pool = new Piscina({ filename: fileURLToPath(import.meta.url), minThreads: 2, maxThreads: 2, execArgv: execArgvFor(fileURLToPath(import.meta.url)) });
    const n = bytes / 4 / 8;
    const done = await Promise.all(
      Array.from({ length: 8 }, (_, k) => pool.run({ fd, bytes, start: k * n, count: n, value: k + 1, mode: 'gc' } satisfies Job)),
    );
    assert.deepEqual(done, Array(8).fill(n));
    await pool.destroy();
    const all = new Float32Array(new Uint8Array(mm!.map(fd, 0, bytes)).buffer);
    for (let k = 0; k < 8; k++)
      assert.ok(
        all.subarray(k * n, (k + 1) * n).every((v) => v === k + 1),
        `task ${k}`,
      );
    fs.closeSync(fd);
  });
}
