// Everything a run needs before its first step, set up in order and torn down in reverse:
// devices → slab → workers (each builds the model) → layout agreement → data fits model →
// slab sized → initial weights published by rank 0 → master weights and optimizer state →
// reduce pool. Train, eval and predict all start here.
import os from 'node:os';
import type { Config } from '../shared/config/types.ts';
import { DataError } from '../shared/errors.ts';
import { flatten, layoutHash, slabLayout as makeSlabLayout, type FlatLayout, type SlabLayout } from '../shared/layout.ts';
import type { RowFormat } from '../shared/protocol.ts';
import { Slab } from '../shared/slab.ts';
import { rowBytes, type Dataset } from './data/dataset.ts';
import { discoverGpus, selectDevices, type WorkerDevice } from './devices.ts';
import { makeUpdateRule } from './optimizers/index.ts';
import type { Progress } from './progress.ts';
import { ReducePool } from './reduce/reduce-pool.ts';
import type { ReduceShared } from './reduce/reducer.ts';
import { rowFormat } from './row-format.ts';
import { Stager } from './stager.ts';
import { WorkerGroup } from './worker-group.ts';

export interface Session {
  group: WorkerGroup;
  slab: Slab;
  layout: SlabLayout;
  flat: FlatLayout;
  rows: RowFormat;
  stager: Stager;
  master: Float32Array; // P floats over a SharedArrayBuffer, shared with the reduce threads
  slots: Float32Array[];
  pool: ReducePool;
  weightsVersion: number;
  close(): Promise<void>;
}

/** The workers this run starts; with no GPU and no --simulate, simulated ones on the CPU. */
export function runDevices(cfg: Config, out: Progress): WorkerDevice[] {
  if (cfg.devices.simulate > 0) return selectDevices({ gpus: [], reason: null }, 'all', cfg.devices.simulate);
  const found = discoverGpus();
  if (found.gpus.length === 0 && cfg.devices.gpus === 'all') {
    const n = Math.max(1, os.availableParallelism());
    out.line(`no GPU found (${found.reason}); training on ${n} simulated GPUs on the CPU instead (choose with --simulate N)`);
    return selectDevices(found, 'all', n);
  }
  return selectDevices(found, cfg.devices.gpus, 0);
}

/** `perRank`: the most rows one rank must hold at once (ceil of the largest batch / workers). */
export async function openSession(cfg: Config, devices: WorkerDevice[], data: Dataset[], dataKeys: string[], maxBatch: number): Promise<Session> {
  const slab = Slab.create(cfg.devices.shmDir);
  let group: WorkerGroup | null = null;
  try {
    group = await WorkerGroup.start(devices, slab, {
      backend: cfg.devices.backend,
      model: { module: cfg.model.module, json: cfg.model.json },
      seed: cfg.training.seed,
      loss: cfg.loss,
    });
    const modelLayout = group.layout;
    const rowsAll = data.map((ds, i) => rowFormat(ds, modelLayout, cfg.loss, dataKeys[i]));
    const rows = rowsAll[0];
    rowsAll.forEach((r, i) => {
      if (JSON.stringify(r) !== JSON.stringify(rows)) {
        throw new DataError(`${dataKeys[i]} stores rows as ${JSON.stringify(r)} but ${dataKeys[0]} as ${JSON.stringify(rows)}`, 'give both splits the same dtypes and shapes');
      }
    });
    const flat = flatten(modelLayout.variables);
    const perRank = Math.ceil(maxBatch / devices.length);
    const inputBytes = Math.max(...data.map((ds) => perRank * (rowBytes(ds.features) + rowBytes(ds.labels))));
    const layout = makeSlabLayout(flat, devices.length, inputBytes, layoutHash(modelLayout.variables));
    slab.resize(layout, cfg.devices.shmDir);
    await group.all((rank) => ({ type: 'attach', slab: layout, rows, writeInitialWeights: rank === 0 }), 'attach');

    const weights = new SharedArrayBuffer(flat.total * 4);
    const master = new Float32Array(weights);
    slab.read(layout.weights, master);
    const rule = makeUpdateRule(cfg.optimizer);
    const slotBuffers = rule.slotInit.map(() => new SharedArrayBuffer(flat.trainable * 4));
    const slots = slotBuffers.map((b, k) => new Float32Array(b).fill(rule.slotInit[k]));
    const shared: ReduceShared = { fd: slab.fd, slab: layout, optimizer: cfg.optimizer, weights, slots: slotBuffers };
    const pool = new ReducePool(shared, os.availableParallelism());
    const g = group;
    return {
      group: g, slab, layout, flat, rows, stager: new Stager(slab, layout), master, slots, pool, weightsVersion: 0,
      async close() {
        await pool.destroy();
        await g.stop();
        slab.close();
      },
    };
  } catch (err) {
    await group?.stop();
    slab.close();
    throw err;
  }
}
