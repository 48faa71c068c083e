// Sync: the time to gather P parameters' gradients from N workers, sum them, apply SGD and get
// the new weights back into every worker, for P from 1M to 25M floats; over the mapped slab,
// over positional I/O, and the naive way (arrays as Node IPC messages), with the machine's
// memcpy bandwidth measured in the same run for scale.
//   node --import tsx scripts/bench/sync.ts [--workers 2] [--reps 7] [--sizes 1,5,10,25]
import { fork, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Channel } from '../../src/shared/channel.ts';
import { flatten, slabLayout, type SlabLayout } from '../../src/shared/layout.ts';
import { childExecArgv } from '../../src/shared/runtime.ts';
import { Slab } from '../../src/shared/slab.ts';
import { ReducePool } from '../../src/coordinator/engine/reduce/reduce-pool.ts';
import { validateConfig } from '../../src/shared/config/validate.ts';
import { median } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '2' },
    reps: { type: 'string', default: '7' },
    sizes: { type: 'string', default: '1,5,10,25' },
  },
});
const N = Number(values.workers);
const REPS = Number(values.reps);
const child = fileURLToPath(new URL('./sync-child.ts', import.meta.url));
const sgd = validateConfig(
  {
    model: { json: fileURLToPath(import.meta.url) },
    loss: 'meanSquaredError',
    data: { train: { type: 'mnist' } },
    training: { batchSize: 1 },
    optimizer: { name: 'sgd' },
  },
  { configPath: null, cwd: process.cwd() },
).optimizer;

function memcpyGBps(bytes: number): number {
  const a = new Float32Array(bytes / 4).fill(1);
  const b = new Float32Array(bytes / 4);
  const t: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    b.set(a);
    t.push(performance.now() - t0);
  }
  return bytes / median(t) / 1e6;
}

async function slabSync(P: number, mapped: boolean): Promise<number> {
  const slab = Slab.create('/dev/shm', { mmap: mapped });
  const flat = flatten([{ name: 'w', shape: [P], dtype: 'float32', trainable: true }]);
  const layout: SlabLayout = slabLayout(flat, N, 4096, 4096, 1);
  slab.resize(layout, '/dev/shm');
  const weights = new SharedArrayBuffer(P * 4);
  const pool = new ReducePool(
    {
      fd: slab.fd,
      slab: layout,
      optimizer: sgd,
      weights: slab.mode === 'mapped' ? null : weights,
      slots: [],
      ema: null,
      emaDecay: 0,
      gradSum: new SharedArrayBuffer(P * 4),
    },
    os.availableParallelism(),
    null,
  );
  const kids: ChildProcess[] = [];
  const chans: Array<Channel<{ type: 'ok' }, unknown>> = [];
  let waiting: Array<() => void> = [];
  const all = (type: string) =>
    new Promise<void>((resolve) => {
      let left = N;
      waiting = [
        () => {
          if (--left === 0) resolve();
        },
      ];
      chans.forEach((c) => c.send({ type }));
    });
  for (let r = 0; r < N; r++) {
    const k = spawn(process.execPath, [...childExecArgv(), child, 'slab'], {
      stdio: ['ignore', 'inherit', 'inherit', slab.fd, 'pipe'],
      env: { ...process.env, MGPU_MMAP: mapped ? '1' : '0' },
    });
    kids.push(k);
    const c = new Channel<{ type: 'ok' }, unknown>(k.stdio[4] as Duplex, () => waiting[0]?.());
    chans.push(c);
  }
  await new Promise<void>((resolve) => {
    let left = N;
    waiting = [
      () => {
        if (--left === 0) resolve();
      },
    ];
    chans.forEach((c, r) => c.send({ type: 'attach', layout, rank: r }));
  });
  const times: number[] = [];
  for (let i = 0; i < REPS + 1; i++) {
    const t0 = performance.now();
    await all('grads');
    await pool.run(
      kids.map((_, r) => r),
      false,
      0.01,
      i + 1,
    );
    await all('weights');
    if (i > 0) times.push(performance.now() - t0);
  }
  kids.forEach((k) => k.kill());
  await pool.destroy();
  slab.close();
  return median(times);
}

async function ipcSync(P: number): Promise<number> {
  const kids = Array.from({ length: N }, () => fork(child, ['ipc'], { execArgv: childExecArgv(), serialization: 'advanced' }));
  const ask = (k: ChildProcess, m: unknown) =>
    new Promise<{ g?: Float32Array }>((resolve) => {
      k.once('message', resolve as never);
      k.send(m as never);
    });
  await Promise.all(kids.map((k) => ask(k, { type: 'init', p: P })));
  const w = new Float32Array(P);
  const times: number[] = [];
  for (let i = 0; i < REPS + 1; i++) {
    const t0 = performance.now();
    const replies = await Promise.all(kids.map((k) => ask(k, { type: 'grads' })));
    const g = new Float32Array(P);
    for (const r of replies) for (let j = 0; j < P; j++) g[j]! += r.g![j]!;
    for (let j = 0; j < P; j++) w[j]! -= 0.01 * g[j]!;
    await Promise.all(kids.map((k) => ask(k, { type: 'weights', w })));
    if (i > 0) times.push(performance.now() - t0);
  }
  kids.forEach((k) => k.kill());
  return median(times);
}

const rows: Array<Record<string, string | number>> = [];
for (const millions of values.sizes.split(',').map(Number)) {
  const P = millions * 1_000_000;
  // Bytes a sync moves: N gradients written and read, the weights written once and read N times.
  const bytes = (3 * N + 1) * 4 * P;
  const memcpy = memcpyGBps(Math.min(P * 4, 400e6));
  const memcpyMs = bytes / (memcpy * 1e6);
  for (const [mode, run] of [
    ['slab, mapped', () => slabSync(P, true)],
    ['slab, positional I/O', () => slabSync(P, false)],
    ['Node IPC messages', () => ipcSync(P)],
  ] as const) {
    const ms = await run();
    rows.push({
      'params (M)': millions,
      workers: N,
      transport: mode,
      'sync ms': ms,
      'GB/s': bytes / ms / 1e6,
      'memcpy ms': memcpyMs,
      'x memcpy': ms / memcpyMs,
    });
  }
}
printTable(`Sync: gradients out of ${N} workers, summed, SGD, new weights back in every worker (median of ${REPS})`, rows);
console.log(`saved ${saveJson('sync', rows)}`);
