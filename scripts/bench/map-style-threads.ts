// A map-style module's input alone: samples/s that the training loop's input feed (input-feed.ts,
// the code a run uses) gets from a module whose get() burns about --get-ms of synchronous CPU per
// sample (a deterministic loop, calibrated here), with data.threads unset (get() in the
// coordinator's thread) vs 1 vs 2 threads, and with a get() of no work (the pool's own cost per
// sample: rows come back in shared slots, nothing is cloned). Each step's rows are gathered into
// a batch buffer as the stager does; --busy-ms of synchronous work per step in this thread stands
// for the coordinator's own part of a step (0: the input alone), so the wait per step is what
// data_wait_ms would show. Not a test: nothing asserts a time.
//   node --import tsx scripts/bench/map-style-threads.ts [--get-ms 1] [--busy-ms 0,5] [--steps 40] [--batch 32] [--features 64]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { inputFeed } from '../../src/coordinator/input-feed.ts';
import { ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { mapStyleDataset } from '../../src/data/map-module.ts';
import type { MapStyle } from '../../src/data/map-style.ts';
import { produceModule } from '../../src/data/sample-module.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: { 'get-ms': { type: 'string' }, 'busy-ms': { type: 'string' }, steps: { type: 'string' }, batch: { type: 'string' }, features: { type: 'string' } },
});
const GET_MS = Number(values['get-ms'] ?? 1);
const BUSY = (values['busy-ms'] ?? '0,5').split(',').map(Number);
const STEPS = Number(values.steps ?? 40);
const BATCH = Number(values.batch ?? 32);
const FEATURES = Number(values.features ?? 64);
const PREFETCH = 2;

// The work of get(): k rounds of an LCG, the rows drawn from where it ends.
const burn = (k: number, seed: number) => {
  let s = seed >>> 0;
  for (let r = 0; r < k; r++) s = (Math.imul(s, 1103515245) + 12345) >>> 0;
  return s;
};

/** Rounds of `burn` that take about `ms` here. */
function calibrate(ms: number): number {
  if (ms === 0) return 0;
  const k = 10_000_000;
  for (let w = 0; w < 3; w++) burn(k / 10, w); // past V8's first tiers
  const t = performance.now();
  burn(k, 7);
  return Math.round((k * ms) / (performance.now() - t));
}

function writeModule(dir: string, rounds: number): string {
  const file = path.join(dir, `samples-${rounds}.ts`);
  fs.writeFileSync(
    file,
    `const burn = ${burn.toString()};
export default {
  length: ${STEPS * BATCH},
  get(i: number, { epoch }: { epoch: number }) {
    let s = burn(${rounds}, i * 7919 + epoch);
    const x = new Float32Array(${FEATURES});
    for (let f = 0; f < x.length; f++) x[f] = ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    return { x, y: i % 10 };
  },
};
`,
  );
  return file;
}

/** One pass of STEPS steps through the input feed; samples/s and the mean wait per step. */
async function measure(file: string, threads: number | null, busyMs: number): Promise<Record<string, number>> {
  const made = await produceModule({ type: 'module', module: file }, 'data.train', null);
  const ms = made.produced as MapStyle;
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) ms.get(i, { epoch: 9, split: 'data.train' }); // what one get() costs here
  const getUs = ((performance.now() - t0) / 200) * 1000;
  const ds = await mapStyleDataset(ms, made.where, 'data.train', made.file, threads);
  const plan = new BatchPlan(ds.count, BATCH, 1, false, { epochs: 1, steps: null });
  const feed = inputFeed(ds, plan, PREFETCH, ONE_MACHINE);
  const out = new Uint8Array(BATCH * FEATURES * 4);
  try {
    await feed.ready(0); // the threads' start-up and first import: not counted
    let wait = 0;
    const t = performance.now();
    for (let step = 1; step < STEPS; step++) {
      const r = (await feed.ready(step))!; // no limits given: never null
      wait += r.wait;
      ds.features.gather(r.indices, out, 0, 0);
      const until = performance.now() + busyMs;
      while (performance.now() < until); // the coordinator's own part of a step
    }
    const s = (performance.now() - t) / 1000;
    return { get_us: Math.round(getUs), samples_per_s: Math.round(((STEPS - 1) * BATCH) / s), wait_ms_per_step: wait / (STEPS - 1) };
  } finally {
    await ds.pipeline!.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-map-threads-'));
const rows: Array<Record<string, string | number>> = [];
try {
  for (const ms of [GET_MS, 0]) {
    const file = writeModule(dir, calibrate(ms));
    for (const busy of ms === 0 ? [0] : BUSY)
      for (const threads of [null, 1, 2]) rows.push({ get_ms: ms, busy_ms: busy, 'data.threads': threads ?? 'unset', ...(await measure(file, threads, busy)) });
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
printTable(`map-style input feed, batch ${BATCH}, ${STEPS} steps, prefetch ${PREFETCH} (${os.availableParallelism()} cores)`, rows);
console.log(`saved ${saveJson('map-style-threads', rows)}`);
