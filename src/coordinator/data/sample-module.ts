// A data source written as code: a JS/TS module whose default export produces the samples of a
// split. The export is a function (possibly async), called with `{ split }` (the config key path,
// e.g. 'data.train', so one module can serve both splits); it returns either
//
// - an iterable or async iterable of samples `{ x, y }` (e.g. an async generator), or
// - a tf.data.Dataset, or anything shaped like one: `iterator()` resolving to an object whose
//   `next()` resolves to `{ value, done }`; its elements are `{ xs, ys }` or `{ x, y }`.
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

import { pathToFileURL } from 'node:url';
import type { DataSource } from '../../shared/config/types.ts';
import { DataError, messageOf } from '../../shared/errors.ts';
import type { Dataset } from './rows.ts';

type ModuleSource = Extract<DataSource, { type: 'module' }>;

/** What the default export receives. */
export interface SampleModuleContext {
  split: string;
}

interface Values {
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

class Collector {
  private xShape: number[] | null = null;
  private yShape: number[] | null = null;
  private readonly features = new Growable((n) => new Float32Array(n));
  private readonly labels = new Growable((n) => new Float64Array(n));
  private integerLabels = true;
  count = 0;

  constructor(private readonly where: string) {}

  private fail(index: number, message: string, hint?: string): never {
    throw new DataError(`${this.where}: sample ${index}: ${message}`, hint);
  }

  /** x or y as flat values and a shape; tensors are read and disposed by the caller. */
  private values(v: unknown, name: string, index: number): Values {
    if (typeof v === 'number') return { data: [v], shape: [] };
    if (isTensorLike(v)) return { data: v.dataSync(), shape: [...v.shape] };
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      if (v instanceof BigInt64Array || v instanceof BigUint64Array)
        this.fail(index, `${name} is a ${v.constructor.name} (expected numbers; 64-bit integers are not supported)`);
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
          this.fail(
            index,
            `${name} is a ragged nested array: ${at} is ${isArr ? `of length ${len}` : describe(a)} where the first element's shape says an array of length ${shape[depth]} (expected shape ${shapeText(shape)})`,
          );
        }
        for (let i = 0; i < len; i++) walk((a as ArrayLike<unknown>)[i], depth + 1, [...path, i]);
      };
      walk(v, 0, []);
      return { data: out, shape };
    }
    return this.fail(index, `${name} is ${describe(v)} (expected a number, an array of numbers, a typed array or a tensor)`);
  }

  add(sample: unknown, index: number): void {
    if (typeof sample !== 'object' || sample === null) {
      this.fail(index, `is ${describe(sample)} (expected { x, y } or { xs, ys })`, EXAMPLE);
    }
    const s = sample as Record<string, unknown>;
    const [xName, yName] = 'xs' in s || 'ys' in s ? ['xs', 'ys'] : ['x', 'y'];
    const tensors = [s[xName], s[yName]].filter(isTensorLike);
    try {
      if (s[xName] === undefined || s[yName] === undefined) {
        const keys = Object.keys(s);
        this.fail(
          index,
          `has no ${s[xName] === undefined ? xName : yName} (expected { x, y } or { xs, ys }; its keys are ${keys.length ? keys.join(', ') : 'none'})`,
          EXAMPLE,
        );
      }
      this.addX(this.values(s[xName], xName, index), xName, index);
      this.addY(this.values(s[yName], yName, index), yName, index);
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

  private checkShape(kind: 'x' | 'y', got: number[], name: string, index: number): void {
    const want = kind === 'x' ? this.xShape : this.yShape;
    if (want === null) {
      if (kind === 'x' && sizeOf(got) === 0) this.fail(index, `${name} has shape ${shapeText(got)}, no values (expected at least one feature)`);
      if (kind === 'x') this.xShape = got;
      else this.yShape = got;
      return;
    }
    if (got.length !== want.length || got.some((d, i) => d !== want[i])) {
      this.fail(
        index,
        `${name} has shape ${shapeText(got)} but sample 0's has shape ${shapeText(want)} (expected every sample's ${name} to have the same shape)`,
        'if the module returns a batched tf.data.Dataset, return it unbatched: every element is one sample',
      );
    }
  }

  private addX(v: Values, name: string, index: number): void {
    this.checkShape('x', v.shape, name, index);
    const n = v.data.length;
    const buf = this.features.reserve(n);
    const at = this.features.length;
    for (let i = 0; i < n; i++) {
      const raw = v.data[i];
      const x = typeof raw === 'number' ? Math.fround(raw) : typeof raw === 'boolean' ? +raw : NaN;
      if (!Number.isFinite(x)) {
        const what = typeof raw === 'number' ? String(raw) : describe(raw);
        this.fail(
          index,
          `${name} holds ${what} at flat position ${i}${typeof raw === 'number' && Number.isFinite(raw) ? ' (too large for float32)' : ''} (expected finite numbers)`,
        );
      }
      buf[at + i] = x;
    }
    this.features.length += n;
  }

  private addY(v: Values, name: string, index: number): void {
    this.checkShape('y', v.shape, name, index);
    const n = v.data.length;
    const buf = this.labels.reserve(n);
    const at = this.labels.length;
    for (let i = 0; i < n; i++) {
      const raw = v.data[i];
      const y = typeof raw === 'number' ? raw : typeof raw === 'boolean' ? +raw : NaN;
      if (!Number.isFinite(y))
        this.fail(index, `${name} holds ${typeof raw === 'number' ? String(raw) : describe(raw)} at flat position ${i} (expected finite numbers)`);
      if (this.integerLabels && (!Number.isInteger(y) || y < INT32_MIN || y > INT32_MAX)) this.integerLabels = false;
      buf[at + i] = y;
    }
    this.labels.length += n;
  }

  finish(source: string): Dataset {
    if (this.count === 0) {
      throw new DataError(`${this.where}: produced no samples (expected at least one { x, y })`, EXAMPLE);
    }
    const n = this.count;
    const yShape = this.yShape!;
    const labels = this.labels.finish();
    return {
      features: { dtype: 'float32', shape: [n, ...this.xShape!], data: this.features.finish() },
      labels:
        yShape.length === 0 && this.integerLabels
          ? { dtype: 'int32', shape: [n], data: Int32Array.from(labels) }
          : { dtype: 'float32', shape: [n, ...yShape], data: Float32Array.from(labels) },
      count: n,
      source,
    };
  }
}

/** Loads a module data source; `keyPath` (e.g. `data.train`) names its config entry in errors. */
export async function loadSampleModule(src: ModuleSource, keyPath: string): Promise<Dataset> {
  const file = src.module;
  const where = `${keyPath}: module ${file}`;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new DataError(`${where} (${keyPath}.module) failed to import: ${messageOf(err)}`, 'run it with `node --import tsx <file>` to see the full error');
  }
  const make = mod.default;
  if (typeof make !== 'function') {
    throw new DataError(`${where} (${keyPath}.module) has no default export function (its default export is ${describe(make)})`, EXAMPLE);
  }

  let produced: unknown;
  try {
    produced = await (make as (ctx: SampleModuleContext) => unknown)({ split: keyPath });
  } catch (err) {
    throw new DataError(`${where}: its default export threw: ${messageOf(err)}`);
  }

  const collector = new Collector(where);
  let index = 0;
  const next = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof DataError) throw err;
      throw new DataError(`${where}: threw while producing sample ${index}: ${messageOf(err)}`);
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
      collector.add(r.value, index++);
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
        collector.add(r.value, index++);
      }
    } catch (err) {
      // Let a generator run its finally blocks (close files, dispose tensors) before failing.
      try {
        await it.return?.();
      } catch {
        // the original error is the one to report
      }
      throw err;
    }
  } else {
    throw new DataError(
      `${where}: its default export returned ${describe(produced)}, which is neither an iterable of samples nor a tf.data.Dataset`,
      `return (or be) a generator of { x, y }, an array of them, or a tf.data.Dataset: ${EXAMPLE}`,
    );
  }
  return collector.finish(`module ${file}`);
}
