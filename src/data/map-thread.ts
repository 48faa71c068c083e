// A piscina thread of a map-style module's pool (data.threads): imports the module itself, once
// (as each of DataLoader's workers holds its own dataset: a default export that is a function is
// called once per thread), and writes the samples of its share of a step straight into the shared
// row slots the 'made' columns copy from, checked as the coordinator's thread checks them.
import { workerData } from 'piscina';
import { DataError, messageOf } from '../shared/errors.ts';
import { isMapStyle, type MapStyle } from './map-style.ts';
import { placeSample, type Part } from './map-sample.ts';
import { produceModule } from './sample-module.ts';
import { valueText } from './value-text.ts';
import type { SlotResult, SlotTask } from './thread-rows.ts';

/** What every thread of the pool is given: the module, its split and what sample 0 fixed. */
export interface MapThreadData {
  file: string;
  keyPath: string; // data.train: the split get() is told, and its default export's { split }
  where: string; // `data.train: module m.ts`, as in the coordinator's messages
  length: number; // the coordinator's copy's
  parts: Part[];
}

let dataset: Promise<MapStyle> | null = null;

async function load(d: MapThreadData): Promise<MapStyle> {
  let made;
  try {
    made = await produceModule({ type: 'module', module: d.file }, d.keyPath, null);
  } catch (err) {
    const e = err as { hint?: string };
    // A .ts module is compiled to CommonJS in a thread (shared/import-user-module.ts): no top-level await there.
    const ts = /\.[cm]?ts$/i.test(d.file);
    throw new DataError(
      `${messageOf(err)} (in a data thread, data.threads)`,
      ts
        ? 'in a data thread a .ts module is loaded as CommonJS (tsx cannot hook import() in worker threads on Node 20): no top-level await there; write the module as .mjs, or unset data.threads to run get() in the coordinator'
        : e.hint,
    );
  }
  const ms = made.produced;
  if (!isMapStyle(ms))
    throw new DataError(`${d.where}: is not map-style ({ length, get }) in a data thread, but was in the coordinator`, 'give every thread the same dataset');
  if (ms.length !== d.length)
    throw new DataError(
      `${d.where}: its length is ${valueText(ms.length)} in a data thread but ${d.length} in the coordinator (expected every copy of the dataset to have the same length)`,
      'length must not depend on the thread that imports the module (data.threads imports it once per thread)',
    );
  return ms;
}

export default async function run(task: SlotTask): Promise<SlotResult> {
  const d = workerData as MapThreadData;
  const fail = (index: number, message: string, hint?: string): never => {
    throw new DataError(`${d.where}: sample ${index}: ${message}`, hint);
  };
  const out: SlotResult = []; // every sample the same when the module failed to load
  let ms: MapStyle;
  try {
    ms = await (dataset ??= load(d));
  } catch (err) {
    const e = err as { message: string; hint?: string };
    return task.samples.map(() => ({ message: e.message, hint: e.hint, threadFailed: true })); // not a sample's fault: never skipped
  }
  const progress = new Int32Array(task.progress);
  for (let j = 0; j < task.samples.length; j++) {
    Atomics.store(progress, 0, j); // a get() that never settles is named by it (ThreadRows.unsettledSample)
    const row = new Uint8Array(task.buffers[task.at[2 * j]!]!, task.at[2 * j + 1], task.rowBytes);
    try {
      await placeSample(ms, d.parts, task.samples[j]!, task.epoch, d.keyPath, row, fail);
      out.push(null);
    } catch (err) {
      const e = err as { message: string; hint?: string };
      out.push({ message: messageOf(err), hint: e.hint });
    }
  }
  return out;
}
