// The end of a step (train-step.ts's finishStep) settles the sums begun as replies arrived on every
// path: a skipped non-finite step (onNonFinite: skip), a stopped one (onNonFinite: stop), a
// staging error, and a reduced one. The reduce pool is forced on (2 piscina threads, as in
// reduce-pool-threads-equal-inline.test.ts), so the early accumulate tasks really run in other
// threads: one still running when finishStep returns would write the sum while the next step
// starts building it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ArrivalSum } from '../../src/coordinator/engine/reduce/arrival-sum.ts';
import { ReducePool } from '../../src/coordinator/engine/reduce/reduce-pool.ts';
import type { Session } from '../../src/coordinator/engine/session.ts';
import { finishStep } from '../../src/coordinator/train-step.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { soloCluster } from '../../src/coordinator/devices/cluster.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { flatten, slabLayout } from '../../src/shared/layout.ts';
import type { GradsMessage } from '../../src/shared/protocol.ts';
import { assignShards } from '../../src/shared/shard.ts';
import { Slab } from '../../src/shared/slab.ts';
import { randomUniform, seededRandom } from '../helpers/close.ts';

const P = 100_003;
const RANKS = [0, 1, 2];
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const config = (onNonFinite: 'skip' | 'stop') =>
  validateConfig(
    {
      model: { json: fileURLToPath(import.meta.url) },
      loss: 'meanSquaredError',
      data: { train: { type: 'mnist' } },
      training: { batchSize: 6 },
      optimizer: { name: 'sgd', learningRate: 0.05 },
      reliability: { onNonFinite },
    },
    { configPath: null, cwd: process.cwd() },
  );

/** A slab with 3 ranks' gradients, a 2-thread pool whose accumulate tasks are counted while in flight. */
async function withPool(fn: (ctx: { pool: ReducePool; inFlight: () => number; started: () => number }) => Promise<void>): Promise<void> {
  const slab = Slab.create(dir);
  const layout = slabLayout(flatten([{ name: 'w', shape: [P], dtype: 'float32', trainable: true }]), RANKS.length, 4096, 4096, 1);
  slab.resize(layout, dir);
  slab.attach(layout);
  const rand = seededRandom(5);
  slab.write(layout.weights, randomUniform(rand, P));
  for (const r of RANKS) slab.write(layout.grads[r]!, randomUniform(rand, P, -0.01, 0.01));
  const weights = new SharedArrayBuffer(P * 4);
  if (slab.mode !== 'mapped') slab.read(layout.weights, new Float32Array(weights));
  const pool = new ReducePool(
    {
      fd: slab.fd,
      slab: layout,
      optimizer: config('skip').optimizer,
      weights: slab.mode === 'mapped' ? null : weights,
      slots: [],
      ema: null,
      emaDecay: 0,
      gradSum: new SharedArrayBuffer(P * 4),
    },
    2,
    null,
    { inlineBelow: 0 },
  );
  assert.equal(pool.threads, 2, 'the pool is on');
  let inFlight = 0;
  let started = 0;
  const accumulate = pool.accumulate.bind(pool);
  pool.accumulate = async (rank, first) => {
    inFlight++;
    started++;
    try {
      await accumulate(rank, first);
    } finally {
      inFlight--;
    }
  };
  try {
    await fn({ pool, inFlight: () => inFlight, started: () => started });
  } finally {
    await pool.destroy();
    slab.close();
  }
}

const reply = (rank: number, finite: boolean): GradsMessage => ({
  type: 'grads',
  rank,
  step: 4,
  lossSum: finite ? 1 : NaN,
  n: 2,
  finite,
  stateChanged: false,
  ms: 1,
  refreshMs: 0,
  writeMs: 0,
});

/** Every rank has replied (rank 2's gradient is not finite): ranks 0 and 1 are being summed early. */
function gathered(pool: ReducePool, finite = false) {
  const early = new ArrivalSum(pool, RANKS);
  for (const r of RANKS) early.onReply(null, r);
  return { early, replies: RANKS.map((r) => reply(r, finite || r !== 2)) };
}

const session = (pool: ReducePool, onNonFinite: 'skip' | 'stop') => ({ cfg: config(onNonFinite), pool, cluster: soloCluster() }) as unknown as Session;
/** What the machines agree on, here from this machine's replies alone (one machine). */
const everywhere = (rs: GradsMessage[]) => ({ nonFinite: rs.filter((m) => !m.finite).length, stateChanged: 0, ranks: rs.length });
const shards = assignShards(6, RANKS);
const staged = { run() {}, check() {} };

test('a skipped non-finite step returns only once the early sums are settled', async () => {
  await withPool(async ({ pool, inFlight, started }) => {
    const { early, replies } = gathered(pool);
    const skipped: string[] = [];
    const r = await finishStep(session(pool, 'skip'), 4, 6, shards, replies, early, staged, everywhere(replies), (what) => void skipped.push(what));
    assert.equal(r, null);
    assert.deepEqual(skipped, ['step 5: non-finite loss or gradient from rank 2']); // step index 4 is step 5 as every message numbers it
    assert.equal(started(), 2, 'ranks 0 and 1 were summed early');
    assert.equal(inFlight(), 0, 'an accumulate task of the skipped step is still running');
  });
});

test('a stopped non-finite step and a staging error throw only once the early sums are settled', async () => {
  await withPool(async ({ pool, inFlight }) => {
    let g = gathered(pool);
    await assert.rejects(
      finishStep(session(pool, 'stop'), 4, 6, shards, g.replies, g.early, staged, everywhere(g.replies), () => {}),
      (err: unknown) => {
        assert.ok(err instanceof MgpuError && err.code === 'E_NONFINITE', String(err));
        assert.equal(inFlight(), 0, 'an accumulate task is still running after E_NONFINITE');
        return true;
      },
    );
    g = gathered(pool, true);
    const failing = {
      run() {},
      check() {
        throw new Error('staging failed');
      },
    };
    await assert.rejects(
      finishStep(session(pool, 'skip'), 4, 6, shards, g.replies, g.early, failing, everywhere(g.replies), () => {}),
      (err: unknown) => {
        assert.equal((err as Error).message, 'staging failed');
        assert.equal(inFlight(), 0, 'an accumulate task is still running after a staging error');
        return true;
      },
    );
  });
});

test('a finite step is reduced and applied, with nothing left running', async () => {
  await withPool(async ({ pool, inFlight }) => {
    const { early, replies } = gathered(pool, true);
    const r = await finishStep(session(pool, 'skip'), 4, 6, shards, replies, early, staged, everywhere(replies), () => assert.fail('skipped'));
    assert.ok(r && Number.isFinite(r.reduced.gradNorm) && r.reduced.gradNorm > 0, JSON.stringify(r));
    assert.equal(r.lr, 0.05);
    assert.equal(r.stateChanged, false);
    assert.equal(inFlight(), 0);
  });
});
