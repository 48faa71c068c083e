// The addon's copyFrom copies out of a mapped data file under a SIGBUS guard: a file cut short
// after it was mapped makes it return where the file ends now, in the main thread and in a
// worker_thread, again and again (the signal is unblocked after each); bytes of a cut last page
// (zeros, no fault) are caught by the fstat after the copy. A SIGBUS anywhere else still kills
// the process as before: a read of the cut mapping outside copyFrom, and one sent with kill.
// The faulting cases run in child processes (this file, with MGPU_COPY_GUARD_CHILD set), so a
// broken guard kills a child, not the test runner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadMmap, mmapUnavailableReason } from '../../src/shared/mapped-memory.ts';
import { addonFiles } from '../../src/shared/native-addon.ts';
import { execArgvFor } from '../../src/shared/runtime.ts';
import { nativeSkip } from '../helpers/native.ts';

const mm = loadMmap();
const PAGE = mm?.pageSize() ?? 4096;
const FILE_BYTES = 4 * PAGE;
const CUT_TO = 1000;

/** A file of FILE_BYTES, open and mapped private (whole); cut() cuts it to CUT_TO bytes. */
function mappedFile(): { fd: number; buffer: ArrayBuffer; cut: () => void } {
  const file = path.join(os.tmpdir(), `mgpu-copy-guard-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, Buffer.alloc(FILE_BYTES, 7));
  const fd = fs.openSync(file, 'r');
  const buffer = mm!.mapPrivate(fd, 0, FILE_BYTES);
  fs.rmSync(file); // the descriptor and the mapping keep the file
  const cut = () => {
    const writable = fs.openSync(`/proc/self/fd/${fd}`, 'r+');
    fs.ftruncateSync(writable, CUT_TO);
    fs.closeSync(writable);
  };
  return { fd, buffer, cut };
}

/** mappedFile(), cut. */
function cutMapping(): { fd: number; buffer: ArrayBuffer } {
  const m = mappedFile();
  m.cut();
  return m;
}

/** copyFrom of one run: `length` bytes from `from` in the file. */
function copyOne(buffer: ArrayBuffer, fd: number, from: number, length: number): number {
  return mm!.copyFrom(new Uint8Array(length), buffer, Float64Array.of(length, from, 0), 1, fd, FILE_BYTES);
}

/**
 * A worker_thread (its own thread-local guard) maps `fd` through the raw addon; once it has,
 * `cut` runs, then the thread copies 64 bytes from `from`: what copyFrom returned there.
 */
function copyInThread(fd: number, from: number, cut: () => void): Promise<number> {
  const addon = fileURLToPath(new URL(`../../${addonFiles('mgpu_mmap')[0]}`, import.meta.url));
  const code = `const { parentPort, workerData: w } = require('node:worker_threads');
    const mm = require(w.addon);
    const buffer = mm.map(w.fd, 0, w.bytes, true);
    parentPort.once('message', () => parentPort.postMessage(mm.copyFrom(new Uint8Array(64), buffer, Float64Array.of(64, w.from, 0), 1, w.fd, w.bytes)));
    parentPort.postMessage('mapped');`;
  const worker = new Worker(code, { eval: true, workerData: { addon, fd, from, bytes: FILE_BYTES } });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: unknown) => {
      if (m !== 'mapped') return void worker.terminate().then(() => resolve(m as number));
      cut();
      worker.postMessage('go');
    });
    worker.once('error', reject);
  });
}

const SCENARIOS: Record<string, () => Promise<unknown>> = {
  // Faults in the main thread, three times, then in a worker_thread: each is a return, not a death.
  caught: async () => {
    const { fd, buffer, cut } = mappedFile();
    const inThread = await copyInThread(fd, 3 * PAGE, cut);
    const ends = [copyOne(buffer, fd, 2 * PAGE, 64), copyOne(buffer, fd, 3 * PAGE + 8, 64), copyOne(buffer, fd, PAGE, 2 * PAGE)];
    return { ends, inThread };
  },
  // After a caught fault, a read of the cut mapping outside copyFrom: SIGBUS, as before.
  outside: async () => {
    const { fd, buffer } = cutMapping();
    copyOne(buffer, fd, 2 * PAGE, 64);
    return new Uint8Array(buffer)[3 * PAGE];
  },
  // With the guard installed, a SIGBUS sent by a process: the default action, as before.
  sent: async () => {
    const { fd, buffer } = cutMapping();
    copyOne(buffer, fd, 2 * PAGE, 64);
    process.kill(process.pid, 'SIGBUS');
    await new Promise((r) => setTimeout(r, 5_000));
    return 'still alive';
  },
};

const scenario = process.env.MGPU_COPY_GUARD_CHILD;
if (scenario) {
  const result = await SCENARIOS[scenario]!();
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

function runChild(name: string) {
  return spawnSync(process.execPath, [...execArgvFor(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url)], {
    env: { ...process.env, MGPU_COPY_GUARD_CHILD: name },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const skip = nativeSkip(mm ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);

test('a copy out of a cut mapping returns where the file ends, in the main thread and a worker_thread, each time', { skip }, () => {
  const r = runChild('caught');
  assert.equal(r.signal, null, `the child died of ${r.signal}: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { ends: [CUT_TO, CUT_TO, CUT_TO], inThread: CUT_TO });
});

test('a SIGBUS outside copyFrom still kills the process: a read of the cut mapping, one sent with kill', { skip }, () => {
  for (const name of ['outside', 'sent']) {
    const r = runChild(name);
    assert.equal(r.signal, 'SIGBUS', `${name}: exit ${r.status}, signal ${r.signal}, printed ${r.stdout} ${r.stderr}`);
  }
});

test('bytes of a cut last page (zeros, no fault) are caught by the size check after the copy', { skip }, () => {
  const file = path.join(os.tmpdir(), `mgpu-copy-guard-tail-${process.pid}`);
  fs.writeFileSync(file, Buffer.alloc(FILE_BYTES - 500, 7));
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = mm!.mapPrivate(fd, 0, FILE_BYTES);
    const tail = FILE_BYTES - 1000; // within the last page
    const into = new Uint8Array(100);
    const run = Float64Array.of(100, tail - 50, 0); // 50 bytes before the cut to come, 50 after
    assert.equal(mm!.copyFrom(into, buffer, run, 1, fd, FILE_BYTES - 500), -1, 'the whole file: a good copy');
    assert.deepEqual([...new Set(into)], [7]);
    fs.truncateSync(file, tail);
    assert.equal(mm!.copyFrom(into, buffer, run, 1, fd, FILE_BYTES - 500), tail);
    assert.deepEqual([...new Set(into)], [7, 0], 'past the cut the page reads zeros: the copy is not to be used');
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file);
  }
});
