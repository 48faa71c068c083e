// The ceiling of synchronous data parallelism on this machine: N plain tfjs processes, each
// training on B/N rows, held in lock step by a barrier (every step starts when all have
// finished the last), with no data exchanged at all. Each step lasts as long as the slowest
// process; on cores of unequal speed that is below the sum of free-running rates.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '../../src/shared/runtime.ts';
import { median } from './run-mgpu.ts';

export async function runLockstepPlain(
  n: number,
  batch: number,
  steps: number,
  backend: string,
  kernels: 'stock' | 'mgpu',
): Promise<{ samples_per_sec: number; step_ms: number }> {
  const file = fileURLToPath(new URL('./lockstep-child.ts', import.meta.url));
  const kids = Array.from({ length: n }, () => fork(file, [backend, String(Math.round(batch / n)), kernels], { execArgv: childExecArgv() }));
  const next = (k: (typeof kids)[number]) => new Promise<number>((resolve) => k.once('message', resolve as never));
  try {
    await Promise.all(kids.map(next));
    const times: number[] = [];
    for (let step = 0; step < steps + 5; step++) {
      const t0 = performance.now();
      await Promise.all(
        kids.map((k) => {
          const done = next(k);
          k.send('go');
          return done;
        }),
      );
      if (step >= 5) times.push(performance.now() - t0);
    }
    const ms = median(times);
    return { samples_per_sec: (batch * 1000) / ms, step_ms: ms };
  } finally {
    kids.forEach((k) => k.kill());
  }
}
