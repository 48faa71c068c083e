// The naive data-parallel loop: the same model, data and global batch as the scaling benchmark,
// with gradients and weights as Node IPC messages instead of the slab. Used by scaling.ts.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '../../src/shared/runtime.ts';
import { shardRanges } from '../../src/shared/shard.ts';
import { median } from './run-mgpu.ts';

export async function runNaiveIpc(
  workers: number,
  batch: number,
  steps: number,
  backend: string,
  replaceWasmKernels = true,
): Promise<{ samples_per_sec: number; step_ms: number }> {
  const file = fileURLToPath(new URL('./naive-ipc-worker.ts', import.meta.url));
  const kids = Array.from({ length: workers }, () => fork(file, [], { execArgv: childExecArgv(), serialization: 'advanced' }));
  const ask = (i: number, m: unknown) =>
    new Promise<{ weights?: Float32Array; grads?: Float32Array }>((resolve) => {
      kids[i]!.once('message', resolve as never);
      kids[i]!.send(m as never);
    });
  const rows = batch * 8;
  const ready = await Promise.all(kids.map((_, i) => ask(i, { type: 'init', rows, backend, replaceWasmKernels })));
  const w = ready[0]!.weights!;
  const times: number[] = [];
  for (let step = 0; step < steps + 3; step++) {
    const t0 = performance.now();
    const start = (step * batch) % rows;
    const replies = await Promise.all(shardRanges(batch, workers).map(([a, b], i) => ask(i, { type: 'step', start: start + a, n: b - a, batch, weights: w })));
    const g = replies[0]!.grads!;
    for (let r = 1; r < replies.length; r++) {
      const o = replies[r]!.grads!;
      for (let j = 0; j < g.length; j++) g[j]! += o[j]!;
    }
    for (let j = 0; j < w.length; j++) w[j]! -= 0.01 * g[j]!;
    if (step >= 3) times.push(performance.now() - t0);
  }
  kids.forEach((k) => k.kill());
  const ms = median(times);
  return { samples_per_sec: (batch * 1000) / ms, step_ms: ms };
}
