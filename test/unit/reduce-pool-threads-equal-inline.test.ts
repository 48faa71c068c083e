// The reduce gives the same bits whether it runs inline on the coordinator's thread or cut into
// slices over piscina threads: the summed gradient, its norm, the SGD update (with and without
// clipping, with and without ranks summed early as they arrive); and, as one of several
// machines, with the allreduce in chunks of 40,000 floats (each cut over the threads) the bits of one
// allreduce of the whole sum inline (a fake allreduce adds another machine's gradient).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Combine } from '../../src/coordinator/engine/overlapped-allreduce.ts';
import { ReducePool } from '../../src/coordinator/engine/reduce/reduce-pool.ts';
import { flatten, slabLayout } from '../../src/shared/layout.ts';
import { Slab } from '../../src/shared/slab.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { randomUniform, seededRandom } from '../helpers/close.ts';

const P = 100_003; // two slices of 65536 and 34467: a partial last chunk and a ragged tail
const RANKS = 3;
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const sgd = validateConfig(
  {
    model: { json: fileURLToPath(import.meta.url) },
    loss: 'meanSquaredError',
    data: { train: { type: 'mnist' } },
    training: { batchSize: 1 },
    optimizer: { name: 'sgd', learningRate: 0.05 },
  },
  { configPath: null, cwd: process.cwd() },
).optimizer;

/** Another machine's sum, which the fake allreduce adds to each chunk at its offset. */
const other = randomUniform(seededRandom(12), P, -0.01, 0.01);
const fakeCombine = (chunk: number): Combine => ({
  chunk,
  ready: async () => {},
  sum: async (part) => {
    const at = part.byteOffset / 4;
    for (let i = 0; i < part.length; i++) part[i]! += other[at + i]!;
  },
});

/** `chunk`: as one of several machines (runCombined), the allreduce in chunks of this many floats. */
async function reduce(
  threads: number,
  clipNorm: number | null,
  early: boolean,
  chunk: number | null = null,
): Promise<{ weights: Buffer; norm: number; scale: number }> {
  const slab = Slab.create(dir);
  const layout = slabLayout(flatten([{ name: 'w', shape: [P], dtype: 'float32', trainable: true }]), RANKS, 4096, 4096, 1);
  slab.resize(layout, dir);
  slab.attach(layout);
  const rand = seededRandom(11);
  slab.write(layout.weights, randomUniform(rand, P, -1, 1));
  for (let r = 0; r < RANKS; r++) slab.write(layout.grads[r]!, randomUniform(rand, P, -0.01, 0.01));
  const weights = new SharedArrayBuffer(P * 4);
  if (slab.mode !== 'mapped') slab.read(layout.weights, new Float32Array(weights));
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
    threads,
    clipNorm,
    { inlineBelow: 0 },
  );
  try {
    assert.equal(pool.threads, threads > 1 ? 2 : 0);
    if (early) {
      await pool.accumulate(0, true);
      await pool.accumulate(1, false);
    }
    const ranks = early ? [2] : [0, 1, 2];
    const r = chunk === null ? await pool.run(ranks, early, 0.05, 1) : await pool.runCombined(ranks, early, 0.05, 1, fakeCombine(chunk));
    const out = new Float32Array(P);
    if (slab.mode === 'mapped') slab.read(layout.weights, out);
    else out.set(new Float32Array(weights));
    return { weights: Buffer.from(out.buffer), norm: r.gradNorm, scale: r.clipScale };
  } finally {
    await pool.destroy();
    slab.close();
  }
}

for (const [clipNorm, early] of [
  [null, false],
  [null, true],
  [0.5, false],
  [0.5, true],
] as const) {
  test(`2 reduce threads == inline, to the bit (clipNorm ${clipNorm}, ${early ? 'two ranks summed early' : 'all ranks at once'})`, async () => {
    const inline = await reduce(1, clipNorm, early);
    const threaded = await reduce(2, clipNorm, early);
    assert.equal(threaded.norm, inline.norm);
    assert.equal(threaded.scale, inline.scale);
    if (clipNorm !== null) assert.ok(inline.scale < 1, `the gradient was clipped (norm ${inline.norm})`);
    assert.ok(threaded.weights.equals(inline.weights), 'the updated weights differ');
  });
}

for (const clipNorm of [null, 0.5]) {
  test(`several machines: 2 threads, allreduce in chunks of 40000 == inline, one allreduce, to the bit (clipNorm ${clipNorm})`, async () => {
    const whole = await reduce(1, clipNorm, true, 0);
    const chunked = await reduce(2, clipNorm, true, 40000);
    assert.equal(chunked.norm, whole.norm);
    assert.ok(chunked.weights.equals(whole.weights), 'the updated weights differ');
    assert.ok(!whole.weights.equals((await reduce(1, clipNorm, true)).weights), 'the fake allreduce added nothing');
  });
}
