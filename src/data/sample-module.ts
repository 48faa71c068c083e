// A data source written as code: a JS/TS module whose default export produces the samples of a
// split. The export is a function (possibly async), called with `{ split }` (the config key path,
// e.g. 'data.train', so one module can serve both splits); it returns either
//
// - an iterable or async iterable of samples `{ x, y }` (e.g. an async generator), or
// - a tf.data.Dataset, or anything shaped like one: `iterator()` resolving to an object whose
//   `next()` resolves to `{ value, done }`; its elements are `{ xs, ys }` or `{ x, y }`, or
// - a map-style object `{ length, get(i) }` (the export may be one itself): read on demand, never
//   collected (map-module.ts); what follows is about the other two.
//
// A value (x or y) is a number, a typed array, a (nested) array of numbers, or a tensor. Tensors
// are recognised by shape (`dataSync()` and a `shape` array), read with dataSync() and disposed:
// this file must not import tfjs, because the coordinator never loads a tfjs backend (the module
// itself may import tfjs; if it does, tfjs is loaded in the coordinator by that module alone).
//
// All samples are collected whole: features become float32 [n, ...xShape], the shape of the first
// sample's x, which every sample must match; labels become int32 [n] when every y is an integer
// scalar (class indices), otherwise float32 [n, ...yShape]. Sample indices in messages are
// 0-based, in the order the module produced them.
//
// A module that never ends (an infinite generator) is refused at `maxSamples` samples, or once
// its samples take half the machine's memory, naming the module and the bound. Reading yields to
// the event loop every few milliseconds, and an abort (Ctrl-C during start-up) ends it at once,
// even while the module awaits something that never comes (read-pacer.ts).

import os from 'node:os';
import { importUserModule } from '../shared/import-user-module.ts';
import { importFailure } from './import-failure.ts';
import { valueText } from './value-text.ts';
import { DATA_MODULE_DEFAULTS } from '../config/defaults.ts';
import type { DataSource } from '../config/types.ts';
import { DataError, messageOf } from '../shared/errors.ts';
import type { NdArray } from '../shared/npy.ts';
import { isMapStyle, mapStyleGap } from './map-style.ts';
import { pacer } from './read-pacer.ts';
import { memoryColumn } from './columns.ts';
import type { HeldDataset } from './rows.ts';

type ModuleSource = Extract<DataSource, { type: 'module' }>;

/** What the default export receives. */
export interface SampleModuleContext {
  split: string;
}

export interface Values {
  data: ArrayLike<unknown>;
  shape: number[];
}

interface TensorLike {
  shape: number[];
  dataSync(): ArrayLike<unknown>;
  dispose?(): void;
}

interface TfDatasetLike {
  iterator(): Promise<{ next(): Promise<unknown> } | null | undefined>; // a user's module: checked as it is used
}

const INT32_MAX = 0x7fffffff;
const INT32_MIN = -0x80000000;
const MAP_STYLE_EXAMPLE = 'export default { length: 1000, get: (i, { epoch, split }) => ({ x: [0.1, 0.2], y: 1 }) }';
const EXAMPLE = 'export default async function* ({ split }) { for (...) yield { x: [0.1, 0.2], y: 1 }; }';

const shapeText = (s: readonly number[]) => `[${s.join(', ')}]`;
const sizeOf = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function isTensorLike(v: unknown): v is TensorLike {
  return typeof v === 'object' && v !== null && typeof (v as TensorLike).dataSync === 'function' && Array.isArray((v as TensorLike).shape);
}

function isTfDatasetLike(v: unknown): v is TfDatasetLike {
  return typeof v === 'object' && v !== null && typeof (v as TfDatasetLike).iterator === 'function';
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Object.create(null) has no constructor
  if (typeof v === 'object') return `an object (${v.constructor?.name ?? 'no prototype'})`;
  return typeof v === 'string' ? 'a string' : typeof v;
}

/** Float32Array grown by doubling; `finish` returns exactly the values pushed. */
class Growable<T extends Float32Array | Float64Array> {
  private buf: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.buf = make(1024);
  }
  reserve(n: number): T {
    if (this.length + n > this.buf.length) {
      const grown = this.make(Math.max(this.length + n, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    return this.buf;
  }
  finish(): T {
    return this.buf.slice(0, this.length) as T;
  }
}

/**
 * One value of every sample: a model input's features (float32) or an output's targets (int32
 * class indices when every value is an integer scalar, else float32), with the shape of sample
 * 0's, which every sample must match.
 */
class Column {
  shape: number[] | null = null;
  private readonly values: Growable<Float32Array> | Growable<Float64Array>;
  private integers = true;

  constructor(
    private readonly kind: 'x' | 'y',
    readonly label: string, // as messages name it: x, ys, x.image, y.digit
  ) {
    this.values = kind === 'x' ? new Growable((n) => new Float32Array(n)) : new Growable((n) => new Float64Array(n));
  }

  add(v: Values, index: number, fail: (index: number, message: string, hint?: string) => never): void {
    const name = this.label;
    if (this.shape === null) {
      if (this.kind === 'x' && sizeOf(v.shape) === 0) fail(index, `${name} has shape ${shapeText(v.shape)}, no values (expected at least one feature)`);
      this.shape = v.shape;
    } else if (v.shape.length !== this.shape.length || v.shape.some((d, i) => d !== this.shape![i])) {
      fail(
        index,
        `${name} has shape ${shapeText(v.shape)} but sample 0's has shape ${shapeText(this.shape)} (expected every sample's ${name} to have the same shape)`,
        'if the module returns a batched tf.data.Dataset, return it unbatched: every element is one sample',
      );
    }
    const n = v.data.length;
    const buf = this.values.reserve(n);
    const at = this.values.length;
    for (let i = 0; i < n; i++) {
      const raw = v.data[i];
      if (this.kind === 'x') {
        const x = typeof raw === 'number' ? Math.fround(raw) : typeof raw === 'boolean' ? +raw : NaN;
        if (!Number.isFinite(x)) {
          fail(
            index,
            `${name} holds ${valueText(raw)} at flat position ${i}${typeof raw === 'number' && Number.isFinite(raw) ? ' (too large for float32)' : ''} (expected finite numbers)`,
          );
        }
        buf[at + i] = x;
      } else {
        const y = typeof raw === 'number' ? raw : typeof raw === 'boolean' ? +raw : NaN;
        if (!Number.isFinite(y)) fail(index, `${name} holds ${valueText(raw)} at flat position ${i} (expected finite numbers)`);
        if (this.integers && (!Number.isInteger(y) || y < INT32_MIN || y > INT32_MAX)) this.integers = false;
        buf[at + i] = y;
      }
    }
    this.values.length += n;
  }

  /** The bytes its values take so far (float32 features, float64 targets until finish). */
  get bytes(): number {
    return this.values.length * (this.kind === 'x' ? 4 : 8);
  }

  finish(n: number): NdArray {
    const shape = this.shape!;
    const values = this.values.finish();
    if (this.kind === 'x') return { dtype: 'float32', shape: [n, ...shape], data: values as Float32Array };
    return shape.length === 0 && this.integers
      ? { dtype: 'int32', shape: [n], data: Int32Array.from(values) }
      : { dtype: 'float32', shape: [n, ...shape], data: Float32Array.from(values) };
  }
}

/** x or y as flat values and a shape; tensors are read and disposed by the caller. */
export function valuesOf(v: unknown, name: string, index: number, fail: (index: number, message: string, hint?: string) => never): Values {
  if (typeof v === 'number') return { data: [v], shape: [] };
  if (isTensorLike(v)) return { data: v.dataSync(), shape: [...v.shape] };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    if (v instanceof BigInt64Array || v instanceof BigUint64Array)
      fail(index, `${name} is a ${v.constructor.name} (expected numbers; 64-bit integers are not supported)`);
    return { data: v as unknown as ArrayLike<number>, shape: [(v as unknown as ArrayLike<number>).length] };
  }
  if (Array.isArray(v)) {
    // The shape follows the first element at each depth; every element must agree.
    const shape: number[] = [];
    let probe: unknown = v;
    while (Array.isArray(probe) || (ArrayBuffer.isView(probe) && !(probe instanceof DataView))) {
      const a = probe as ArrayLike<unknown>;
      shape.push(a.length);
      if (a.length === 0) break;
      probe = a[0];
    }
    const out = new Array<unknown>(sizeOf(shape));
    let k = 0;
    const walk = (a: unknown, depth: number, path: number[]): void => {
      if (depth === shape.length) {
        out[k++] = a;
        return;
      }
      const isArr = Array.isArray(a) || (ArrayBuffer.isView(a) && !(a instanceof DataView));
      const len = isArr ? (a as ArrayLike<unknown>).length : -1;
      if (len !== shape[depth]) {
        const at = path.length ? `${name}${path.map((p) => `[${p}]`).join('')}` : name;
        fail(
          index,
          `${name} is a ragged nested array: ${at} is ${isArr ? `of length ${len}` : describe(a)} where the first element's shape says an array of length ${shape[depth]} (expected shape ${shapeText(shape)})`,
        );
      }
      for (let i = 0; i < len; i++) walk((a as ArrayLike<unknown>)[i], depth + 1, [...path, i]);
    };
    walk(v, 0, []);
    return { data: out, shape };
  }
  return fail(
    index,
    `${name} is ${describe(v)} (expected a number, an array of numbers, a typed array or a tensor${name.includes('.') ? '' : `, or an object of them by the model's ${name.startsWith('x') ? 'input' : 'output'} names`})`,
  );
}

/** A plain object whose keys name a model's inputs (x) or outputs (y): not an array, a typed array or a tensor. */
function isNamedMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || ArrayBuffer.isView(v) || isTensorLike(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

class Collector {
  // x and y: one column each, or (several inputs / outputs) one per name, fixed by sample 0.
  private readonly columns: { x: Map<string, Column> | null; y: Map<string, Column> | null } = { x: null, y: null };
  count = 0;

  constructor(private readonly where: string) {}

  /** The bytes every sample so far takes in memory. */
  get bytes(): number {
    let sum = 0;
    for (const columns of [this.columns.x, this.columns.y]) for (const c of columns?.values() ?? []) sum += c.bytes;
    return sum;
  }

  private readonly fail = (index: number, message: string, hint?: string): never => {
    throw new DataError(`${this.where}: sample ${index}: ${message}`, hint);
  };

  private values(v: unknown, name: string, index: number): Values {
    return valuesOf(v, name, index, this.fail);
  }

  add(sample: unknown, index: number): void {
    if (typeof sample !== 'object' || sample === null) {
      this.fail(index, `is ${describe(sample)} (expected { x, y } or { xs, ys })`, EXAMPLE);
    }
    const s = sample as Record<string, unknown>;
    const [xName, yName] = 'xs' in s || 'ys' in s ? ['xs', 'ys'] : ['x', 'y'];
    const parts = [s[xName], s[yName]].flatMap((v) => (isNamedMap(v) ? Object.values(v) : [v]));
    const tensors = parts.filter(isTensorLike);
    try {
      if (s[xName] === undefined || s[yName] === undefined) {
        const keys = Object.keys(s);
        this.fail(
          index,
          `has no ${s[xName] === undefined ? xName : yName} (expected { x, y } or { xs, ys }; its keys are ${keys.length ? keys.join(', ') : 'none'})`,
          EXAMPLE,
        );
      }
      this.addPart('x', s[xName], xName, index);
      this.addPart('y', s[yName], yName, index);
      this.count++;
    } finally {
      for (const t of tensors) {
        try {
          t.dispose?.();
        } catch {
          // already disposed (e.g. xs and ys are the same tensor)
        }
      }
    }
  }

  /** x (or y): one value, or an object of values by name, as sample 0 gave it. */
  private addPart(kind: 'x' | 'y', v: unknown, name: string, index: number): void {
    const named = isNamedMap(v);
    let columns = this.columns[kind];
    if (columns === null) {
      const keys = named ? Object.keys(v) : [''];
      if (keys.length === 0)
        this.fail(index, `${name} is an empty object (expected a value, or one value per model ${kind === 'x' ? 'input' : 'output'} name)`);
      columns = new Map(keys.map((k) => [k, new Column(kind, k ? `${name}.${k}` : name)]));
      this.columns[kind] = columns;
    }
    const namedBefore = !columns.has('');
    if (named !== namedBefore) {
      this.fail(
        index,
        named
          ? `${name} is an object of ${Object.keys(v).join(', ')} but sample 0's ${name} is one value (expected every sample alike)`
          : `${name} is one value but sample 0's ${name} is an object of ${[...columns.keys()].join(', ')} (expected every sample alike)`,
      );
    }
    if (!named) {
      columns.get('')!.add(this.values(v, name, index), index, this.fail);
      return;
    }
    const keys = Object.keys(v);
    const missing = [...columns.keys()].filter((k) => !(k in v));
    const extra = keys.filter((k) => !columns.has(k));
    if (missing.length || extra.length) {
      this.fail(
        index,
        `${name} has ${keys.length ? keys.join(', ') : 'no keys'} but sample 0's ${name} has ${[...columns.keys()].join(', ')}${missing.length ? ` (missing ${missing.join(', ')})` : ''}${extra.length ? ` (not in sample 0: ${extra.join(', ')})` : ''}`,
      );
    }
    for (const [k, column] of columns) column.add(this.values(v[k], column.label, index), index, this.fail);
  }

  finish(source: string): HeldDataset {
    if (this.count === 0) {
      throw new DataError(`${this.where}: produced no samples (expected at least one { x, y })`, EXAMPLE);
    }
    const n = this.count;
    const arrays = (columns: Map<string, Column>, module: 'x' | 'y') =>
      [...columns].map(([name, c]) => ({ name, array: memoryColumn(c.finish(n)), file: source, module }));
    const inputs = arrays(this.columns.x!, 'x');
    const targets = arrays(this.columns.y!, 'y');
    // Matched to the model's inputs and outputs by name (one unnamed x or y: the model's only one)
    // in row-format.ts; features and labels are the first of each.
    return { features: inputs[0]!.array, labels: targets[0]!.array, inputs, targets, count: n, source };
  }
}

/** The most memory a data module's samples may take: half of this machine's. */
export const moduleMaxBytes = (): number => Math.floor(os.totalmem() / 2);

const size = (bytes: number) => (bytes < 2 ** 30 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 2 ** 30).toFixed(1)} GiB`);

/**
 * Loads a module data source; `keyPath` (e.g. `data.train`) names its config entry in errors.
 * `abort` (Ctrl-C during start-up) stops the loading with its reason; `maxBytes`: the memory
 * bound on its samples (moduleMaxBytes()).
 */
export async function loadSampleModule(
  src: ModuleSource,
  keyPath: string,
  abort: AbortSignal | null = null,
  maxBytes: number = moduleMaxBytes(),
): Promise<HeldDataset> {
  const made = await produceModule(src, keyPath, abort);
  if (isMapStyle(made.produced)) throw new DataError(`${made.where}: is map-style ({ length, get }); only the data loader of a run reads those`);
  return collectSamples(made, src, keyPath, abort, maxBytes);
}

/** What a module's default export produced: samples to collect, or (map-style) an object to read on demand. */
export interface ProducedModule {
  produced: unknown;
  where: string; // `data.train: module m.ts`
  file: string;
}

/** Imports the module and calls its default export (a map-style object is taken as it is). */
export async function produceModule(src: ModuleSource, keyPath: string, abort: AbortSignal | null): Promise<ProducedModule> {
  const file = src.module;
  const where = `${keyPath}: module ${file}`;
  const wait = pacer(abort);
  let mod: Record<string, unknown>;
  try {
    mod = await wait.until(importUserModule(file));
  } catch (err) {
    if (abort?.aborted) throw err;
    const { reason, hint } = importFailure(err, file, keyPath);
    throw new DataError(`${where} (${keyPath}.module) failed to import: ${reason}`, hint);
  }
  const make = mod.default;
  if (isMapStyle(make)) return { produced: make, where, file };
  const gap = mapStyleGap(make);
  if (gap) throw new DataError(`${where} (${keyPath}.module): its default export is not map-style: ${gap}`, MAP_STYLE_EXAMPLE);
  if (typeof make !== 'function') {
    throw new DataError(`${where} (${keyPath}.module) has no default export function (its default export is ${describe(make)})`, EXAMPLE);
  }

  let produced: unknown;
  try {
    produced = await wait.until((make as (ctx: SampleModuleContext) => unknown)({ split: keyPath }));
  } catch (err) {
    if (abort?.aborted) throw err;
    throw new DataError(`${where}: its default export threw: ${messageOf(err)}`);
  }
  return { produced, where, file };
}

/** Reads every sample of an iterable (or tf.data.Dataset) module into memory, with the bounds of maxSamples and `maxBytes`. */
export async function collectSamples(
  { produced, where, file }: ProducedModule,
  src: ModuleSource,
  keyPath: string,
  abort: AbortSignal | null,
  maxBytes: number = moduleMaxBytes(),
): Promise<HeldDataset> {
  const maxSamples = src.maxSamples ?? DATA_MODULE_DEFAULTS.maxSamples;
  const wait = pacer(abort);
  const collector = new Collector(where);
  let index = 0;
  // Each value read: the event loop's turn first, then the module's next value.
  const next = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    await wait.pace();
    try {
      return await wait.until(fn());
    } catch (err) {
      if (err instanceof DataError || abort?.aborted) throw err;
      throw new DataError(`${where}: threw while producing sample ${index}: ${messageOf(err)}`);
    }
  };
  // One sample more than the bound is refused: the module does not end.
  const add = (sample: unknown) => {
    if (index >= maxSamples) {
      throw new DataError(
        `${where}: gave more than ${maxSamples} samples, the bound of ${keyPath}.maxSamples (a generator that never ends?)`,
        `end the generator after the last sample; if the split really holds more, raise ${keyPath}.maxSamples (every sample is held in memory before step 0)`,
      );
    }
    collector.add(sample, index++);
    if (collector.bytes > maxBytes) {
      throw new DataError(
        `${where}: its samples passed ${size(maxBytes)} (half this machine's memory), the most a data module may fill before step 0, at sample ${index - 1} (a generator that never ends?)`,
        'end the generator after the last sample; every sample of a data module is held in memory (as float32) before step 0',
      );
    }
  };

  if (isTfDatasetLike(produced)) {
    const it = await next(() => produced.iterator());
    if (typeof it?.next !== 'function') {
      throw new DataError(`${where}: the dataset's iterator() gave ${describe(it)}, which has no next() (expected a tf.data.Dataset)`);
    }
    for (;;) {
      const r = (await next(() => it.next())) as { value: unknown; done?: boolean } | null;
      if (typeof r !== 'object' || r === null)
        throw new DataError(`${where}: the dataset's iterator gave ${describe(r)} at sample ${index} (expected { value, done })`);
      if (r.done) break;
      add(r.value);
    }
  } else if (typeof produced === 'object' && produced !== null && (Symbol.asyncIterator in produced || Symbol.iterator in produced)) {
    const iterable = produced as AsyncIterable<unknown> | Iterable<unknown>;
    const it = Symbol.asyncIterator in iterable ? iterable[Symbol.asyncIterator]() : iterable[Symbol.iterator]();
    try {
      for (;;) {
        const r = (await next(() => it.next())) as IteratorResult<unknown> | null; // a user's iterator may give anything
        if (typeof r !== 'object' || r === null)
          throw new DataError(`${where}: the iterator gave ${describe(r)} at sample ${index} (expected { value, done })`);
        if (r.done) break;
        add(r.value);
      }
    } catch (err) {
      // Let a generator run its finally blocks (close files, dispose tensors) before failing;
      // after an abort without waiting: a generator stuck in an await would never return.
      try {
        const closing = it.return?.();
        if (!abort?.aborted) await closing;
        else Promise.resolve(closing).catch(() => {});
      } catch {
        // the original error is the one to report
      }
      throw err;
    }
  } else {
    const gap = mapStyleGap(produced);
    if (gap) throw new DataError(`${where}: its default export returned an object that is not map-style: ${gap}`, MAP_STYLE_EXAMPLE);
    throw new DataError(
      `${where}: its default export returned ${describe(produced)}, which is neither an iterable of samples nor a tf.data.Dataset`,
      `return (or be) a generator of { x, y }, an array of them, or a tf.data.Dataset: ${EXAMPLE}`,
    );
  }
  return collector.finish(`module ${file}`);
}
