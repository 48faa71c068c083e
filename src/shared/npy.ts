// NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html),
// read and written without numpy. In memory an array is one of three dtypes, the ones the data
// path hands to tfjs; other stored dtypes are converted when that loses nothing a user would
// miss (float64 -> float32, small or in-range ints -> int32) and refused otherwise. Every
// defect is a DataError that starts with the file name and says what was expected.

import fs from 'node:fs';
import { writeFileAtomically } from './atomic-write.ts';
import { DataError } from './errors.ts';
import { readFully } from './read-fully.ts';

export type DType = 'float32' | 'int32' | 'uint8';

export interface NdArray {
  dtype: DType;
  shape: number[]; // [] for a scalar; the data holds the product of the shape (1 for a scalar), C order
  data: Float32Array | Int32Array | Uint8Array; // may start at a non-zero byteOffset of its buffer
  /** The dtype the file stored when it was converted on reading (float64, int64, bool, ...). */
  storedAs?: string;
}

type Fail = (message: string, hint?: string) => never;

interface Stored {
  name: string; // numpy's name, for messages
  size: number; // bytes per element
  view?: DType; // set when the stored bytes already are this in-memory dtype
  /** `base`: the flat index of buf's first element in the whole array, for messages. */
  convert(buf: ArrayBuffer, fail: Fail, base: number): Pick<NdArray, 'dtype' | 'data'>;
}

const INT32_MAX = 0x7fffffff;
const INT32_HINT = "tfjs has no 64-bit integers; if these are features, save them as float32: np.save(path, a.astype('float32'))";

function overflow(fail: Fail, name: string, value: bigint | number, index: number): never {
  return fail(`${name} value ${value} at flat index ${index} does not fit int32 (expected every value in [-2^31, 2^31-1])`, INT32_HINT);
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Keyed by kind + item size. Typed arrays read host byte order; every platform Node runs on is
// little-endian, which is why only '<' (and '|' for single bytes) is accepted.
const STORED: Record<string, Stored> = {
  f4: { name: 'float32', size: 4, view: 'float32', convert: (b) => ({ dtype: 'float32', data: new Float32Array(b) }) },
  i4: { name: 'int32', size: 4, view: 'int32', convert: (b) => ({ dtype: 'int32', data: new Int32Array(b) }) },
  u1: { name: 'uint8', size: 1, view: 'uint8', convert: (b) => ({ dtype: 'uint8', data: new Uint8Array(b) }) },
  b1: { name: 'bool', size: 1, view: 'uint8', convert: (b) => ({ dtype: 'uint8', data: new Uint8Array(b) }) },
  i1: { name: 'int8', size: 1, convert: (b) => ({ dtype: 'int32', data: Int32Array.from(new Int8Array(b)) }) },
  i2: { name: 'int16', size: 2, convert: (b) => ({ dtype: 'int32', data: Int32Array.from(new Int16Array(b)) }) },
  u2: { name: 'uint16', size: 2, convert: (b) => ({ dtype: 'int32', data: Int32Array.from(new Uint16Array(b)) }) },
  f2: { name: 'float16', size: 2, convert: (b) => ({ dtype: 'float32', data: Float32Array.from(new Uint16Array(b), halfToFloat) }) },
  f8: { name: 'float64', size: 8, convert: (b) => ({ dtype: 'float32', data: Float32Array.from(new Float64Array(b)) }) },
  u4: {
    name: 'uint32',
    size: 4,
    convert(b, fail, base) {
      const src = new Uint32Array(b);
      for (let i = 0; i < src.length; i++) if (src[i]! > INT32_MAX) overflow(fail, 'uint32', src[i]!, base + i);
      return { dtype: 'int32', data: new Int32Array(b) };
    },
  },
  i8: {
    name: 'int64',
    size: 8,
    convert(b, fail, base) {
      // An int64 fits int32 exactly when its high word is the sign extension of its low word.
      const w = new Int32Array(b);
      const out = new Int32Array(w.length / 2);
      for (let i = 0; i < out.length; i++) {
        const lo = w[2 * i]!;
        if (w[2 * i + 1] !== lo >> 31) overflow(fail, 'int64', new BigInt64Array(b)[i]!, base + i);
        out[i] = lo;
      }
      return { dtype: 'int32', data: out };
    },
  },
  u8: {
    name: 'uint64',
    size: 8,
    convert(b, fail, base) {
      const w = new Int32Array(b);
      const out = new Int32Array(w.length / 2);
      for (let i = 0; i < out.length; i++) {
        const lo = w[2 * i]!;
        if (w[2 * i + 1] !== 0 || lo < 0) overflow(fail, 'uint64', new BigUint64Array(b)[i]!, base + i);
        out[i] = lo;
      }
      return { dtype: 'int32', data: out };
    },
  },
};

/** The typed array of each in-memory dtype. */
export const VIEWS = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array } as const;

const SUPPORTED = "'<f4', '<i4', '|u1', '|b1', '|i1', '<i2', '<u2', '<f2', '<f8', '<u4', '<i8', '<u8'";
const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const MAX_HEADER = 100_000; // numpy itself refuses headers over 10,000 bytes by default
const REMAKE = 'the file is damaged or not an .npy file; re-create it with numpy.save';

interface Header {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
}

const STRING = /(['"])([^'"\\]*)\1/y;
const BOOL = /(True|False)\b/y;
const TUPLE = /\(\s*((?:\d+L?\s*,\s*)*(?:\d+L?\s*,?\s*)?)\)/y;

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/** Reads the one literal numpy writes: {'descr': str, 'fortran_order': bool, 'shape': (int, ...)}. */
function parseHeader(text: string, fail: Fail): Header {
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const take = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (m) i = re.lastIndex;
    return m;
  };
  const notDict = (what: string): never => fail(`header is not a Python dict literal (${what} at character ${i}): ${preview(text)}`, REMAKE);

  const entries = new Map<string, string | boolean | number[]>();
  skip();
  if (text[i++] !== '{') notDict("expected '{'");
  for (;;) {
    skip();
    if (text[i] === '}') break;
    const key = take(STRING)?.[2] ?? notDict('expected a quoted key');
    skip();
    if (text[i++] !== ':') notDict("expected ':'");
    skip();
    let m: RegExpExecArray | null;
    if ((m = take(STRING))) entries.set(key, m[2]!);
    else if ((m = take(BOOL))) entries.set(key, m[1] === 'True');
    else if ((m = take(TUPLE)))
      entries.set(
        key,
        m[1]!
          .split(',')
          .map((s) => s.trim().replace(/L$/, ''))
          .filter((s) => s !== '')
          .map(Number),
      );
    else if (key === 'descr' && (text[i] === '[' || text[i] === '{'))
      fail("structured (record) dtypes are not supported; expected a plain dtype such as '<f4'", 'save each field as its own array');
    else notDict(`unreadable value for '${key}'`);
    skip();
    if (text[i] === ',') i++;
    else if (text[i] !== '}') notDict("expected ',' or '}'");
  }
  i++;
  skip();
  if (i !== text.length) notDict('text after the closing brace');

  for (const key of entries.keys()) {
    if (key !== 'descr' && key !== 'fortran_order' && key !== 'shape')
      fail(`header has the unexpected key '${key}' (expected exactly 'descr', 'fortran_order', 'shape')`, REMAKE);
  }
  const descr = entries.get('descr');
  const fortranOrder = entries.get('fortran_order');
  const shape = entries.get('shape');
  if (typeof descr !== 'string') fail(`header's 'descr' is missing or not a string: ${preview(text)}`, REMAKE);
  if (typeof fortranOrder !== 'boolean') fail(`header's 'fortran_order' is missing or not True/False: ${preview(text)}`, REMAKE);
  if (!Array.isArray(shape)) fail(`header's 'shape' is missing or not a tuple of integers: ${preview(text)}`, REMAKE);
  for (const d of shape) if (!Number.isSafeInteger(d)) fail(`shape dimension ${d} is too large`, REMAKE);
  return { descr, fortranOrder, shape };
}

function storedType(descr: string, fail: Fail): Stored {
  const m = /^([<>|=])([a-zA-Z])(\d+)$/.exec(descr);
  const stored = m ? STORED[m[2]! + m[3]!] : undefined;
  if (!m || !stored) fail(`unsupported dtype '${descr}' (expected one of ${SUPPORTED})`, "convert it in numpy first, e.g. np.save(path, a.astype('float32'))");
  const order = m[1]!;
  if (order === '>' && stored.size > 1)
    fail(
      `dtype '${descr}' is big-endian (expected little-endian '<${m[2]}${m[3]}')`,
      "convert it in numpy first: np.save(path, a.astype(a.dtype.newbyteorder('<')))",
    );
  if (order !== '<' && stored.size > 1) fail(`dtype '${descr}' has byte order '${order}' (expected '<' for a ${stored.size}-byte type)`, REMAKE);
  return stored;
}

/** Parses the bytes of an .npy file (format versions 1.0, 2.0 and 3.0). `source` names it in errors. */
export function parseNpy(bytes: Uint8Array, source: string): NdArray {
  const h = parseLayout(bytes, bytes.length, source);
  // A copy: aligned for the typed array, and independent of the caller's bytes.
  const buf = new ArrayBuffer(h.need);
  new Uint8Array(buf).set(bytes.subarray(h.dataAt));
  return finish(h, h.stored.convert(buf, h.fail, 0));
}

/** Where an .npy file's data lies and what it holds, from its first bytes and its total length. */
interface Layout {
  header: Header;
  stored: Stored;
  dataAt: number; // byte offset of the data
  count: number; // elements
  need: number; // bytes of data
  fail: Fail;
}

/**
 * Checks the preamble and the header in `bytes` (the file's first bytes: at least its header, or
 * the whole file when shorter) against the file's total length `fileLength`.
 */
function parseLayout(bytes: Uint8Array, fileLength: number, source: string): Layout {
  const fail: Fail = (message, hint) => {
    throw new DataError(`${source}: ${message}`, hint);
  };
  const len = fileLength;
  if (!MAGIC.every((b, i) => i >= bytes.length || bytes[i] === b)) fail('not an .npy file: it does not start with the magic bytes \\x93NUMPY', REMAKE);
  if (len < 8) fail(`file is ${len} bytes, shorter than the 8-byte .npy preamble (file truncated?)`, REMAKE);
  const major = bytes[6]!;
  const minor = bytes[7]!;
  if (![1, 2, 3].includes(major) || minor !== 0) fail(`.npy format version ${major}.${minor} is not supported (expected 1.0, 2.0 or 3.0)`, REMAKE);

  const lenBytes = major === 1 ? 2 : 4;
  const start = 8 + lenBytes;
  if (len < start) fail(`file is ${len} bytes, too short to hold the header length (file truncated?)`, REMAKE);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLen > MAX_HEADER) fail(`header length ${headerLen} is implausibly large (expected at most ${MAX_HEADER} bytes)`, REMAKE);
  if (start + headerLen > len) fail(`header truncated: it declares ${headerLen} bytes but only ${len - start} follow`, REMAKE);
  const headerBytes = bytes.subarray(start, start + headerLen);
  let text: string;
  if (major === 3) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
    } catch {
      fail('header is not valid UTF-8 (expected a version 3.0 header in UTF-8)', REMAKE);
    }
  } else {
    text = Buffer.from(headerBytes.buffer, headerBytes.byteOffset, headerBytes.byteLength).toString('latin1');
  }

  const header = parseHeader(text, fail);
  const stored = storedType(header.descr, fail);
  const shapeText = `[${header.shape.join(', ')}]`;
  if (header.fortranOrder)
    fail(
      `array of shape ${shapeText} is stored in Fortran (column-major) order (expected C order)`,
      'save a C-ordered copy: np.save(path, np.ascontiguousarray(a))',
    );

  const count = header.shape.includes(0) ? 0 : header.shape.reduce((a, b) => a * b, 1);
  const need = count * stored.size;
  if (!Number.isSafeInteger(need)) fail(`shape ${shapeText} is too large`, REMAKE);
  const have = len - start - headerLen;
  const needText = `shape ${shapeText} ${stored.name} needs ${need}`;
  if (have < need) fail(`data holds ${have} bytes but ${needText} (file truncated?)`, REMAKE);
  if (have > need) fail(`data holds ${have} bytes but ${needText} (extra bytes at the end: wrong shape in the header, or two files joined?)`, REMAKE);
  return { header, stored, dataAt: start + headerLen, count, need, fail };
}

function finish(h: Layout, converted: Pick<NdArray, 'dtype' | 'data'>): NdArray {
  return { ...converted, shape: h.header.shape, ...(h.stored.name === converted.dtype ? {} : { storedAs: h.stored.name }) };
}

/**
 * The most values one file may hold: a JavaScript typed array has at most 2^32 elements in the
 * Node versions this runs on, whatever their size (4 GiB of uint8, 16 GiB of float32).
 */
export const MAX_ELEMENTS = 2 ** 32;
const CHUNK_BYTES = 1 << 28; // 256 MiB a read: a file's data is never held twice whole

/**
 * Reads and parses an .npy file; a missing or unreadable file is a DataError naming it. The data
 * is read in chunks straight into the array it becomes (or converted a chunk at a time), so a
 * file may be as large as the array (readFileSync stops at 2 GiB). `chunkBytes`: for tests.
 */
export function readNpy(path: string, opts: { chunkBytes?: number } = {}): NdArray {
  const f = openNpy(path);
  try {
    const { h, read } = f;
    if (h.count > MAX_ELEMENTS)
      h.fail(
        `holds ${h.count} values (shape [${h.header.shape.join(', ')}]); one array can hold at most 2^32 values in Node.js`,
        'split it into files of fewer rows (the training and eval sets apart, for one), or store it more compactly (uint8 pixels)',
      );
    const chunk = Math.max(h.stored.size, Math.floor((opts.chunkBytes ?? CHUNK_BYTES) / h.stored.size) * h.stored.size);
    if (h.stored.view) {
      // Straight into the array: no copy of the file's bytes.
      const data = new VIEWS[h.stored.view](h.count);
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      for (let at = 0; at < h.need; at += chunk) read(bytes.subarray(at, Math.min(h.need, at + chunk)), h.dataAt + at);
      return finish(h, { dtype: h.stored.view, data });
    }
    // Converted a chunk at a time into an array of the in-memory dtype.
    const raw = new ArrayBuffer(Math.min(chunk, h.need));
    let out: Pick<NdArray, 'dtype' | 'data'> | null = null;
    for (let at = 0; at < h.need || out === null; at += chunk) {
      const n = Math.min(chunk, h.need - at);
      read(new Uint8Array(raw, 0, n), h.dataAt + at);
      const got = h.stored.convert(n === raw.byteLength ? raw : raw.slice(0, n), h.fail, at / h.stored.size);
      out ??= { dtype: got.dtype, data: got.dtype === 'float32' ? new Float32Array(h.count) : new Int32Array(h.count) };
      out.data.set(got.data, at / h.stored.size);
      if (h.need === 0) break;
    }
    return finish(h, out);
  } finally {
    fs.closeSync(f.fd);
  }
}

/** Where an .npy file's data lies, read from its header alone (a memory-mapped column, data/mapped-npy.ts). */
export interface NpyLayout {
  shape: number[];
  /** The in-memory dtype the stored bytes already are; null when they must be converted (float64, int64, ...). */
  view: DType | null;
  stored: string; // numpy's name of the stored dtype
  dataAt: number; // byte offset of the data
  fileBytes: number;
}

/** The layout of an .npy file from its header (the file's length checked against it), with the same errors as readNpy. */
export function npyLayout(path: string): NpyLayout {
  const f = openNpy(path);
  fs.closeSync(f.fd);
  const { h } = f;
  return { shape: h.header.shape, view: h.stored.view ?? null, stored: h.stored.name, dataAt: h.dataAt, fileBytes: f.size };
}

/** An .npy file opened and its header parsed; `read` fills bytes from a position, naming the file in errors. */
function openNpy(path: string): { fd: number; size: number; h: Layout; read: (into: Uint8Array, at: number) => void } {
  const cannot = (code: string | undefined, message: string): never => {
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, expected an .npy file' : `cannot be read (${code ?? message})`;
    throw new DataError(`${path}: ${why}`, "check the path; relative paths in a config are resolved against the config file's directory");
  };
  const io = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof DataError) throw err; // the file ended (readFully)
      const e = err as NodeJS.ErrnoException;
      return cannot(e.code, e.message);
    }
  };
  const fd = io(() => fs.openSync(path, 'r'));
  try {
    const st = io(() => fs.fstatSync(fd));
    if (st.isDirectory()) cannot('EISDIR', '');
    const size = st.size;
    const ended = { file: path, why: `it is ${size} bytes long: changed while being read?`, error: (m: string) => new DataError(m, REMAKE) };
    const read = (into: Uint8Array, at: number): void => io(() => readFully(fd, into, at, ended));
    const head = new Uint8Array(Math.min(size, 12 + MAX_HEADER));
    read(head, 0);
    return { fd, size, h: parseLayout(head, size, path), read };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

const DESCR: Record<DType, string> = { float32: '<f4', int32: '<i4', uint8: '|u1' };
const GROWTH_AXIS_MAX_DIGITS = 21; // numpy leaves this much room to grow shape[0] in place

/** The bytes numpy.save would write for `arr` (format 1.0, header padded to 64 bytes). */
export function encodeNpy(arr: NdArray): Uint8Array {
  const count = arr.shape.reduce((a, b) => a * b, 1);
  if (!arr.shape.every((d) => Number.isSafeInteger(d) && d >= 0) || arr.data.length !== count) {
    throw new RangeError(`encodeNpy: shape [${arr.shape.join(', ')}] needs ${count} elements, data has ${arr.data.length}`);
  }
  const expected = VIEWS[arr.dtype];
  if (!(arr.data instanceof expected)) throw new TypeError(`encodeNpy: dtype ${arr.dtype} but data is a ${arr.data.constructor.name}`);

  const shape = arr.shape.length === 1 ? `(${arr.shape[0]},)` : `(${arr.shape.join(', ')})`;
  let header = `{'descr': '${DESCR[arr.dtype]}', 'fortran_order': False, 'shape': ${shape}, }`;
  if (arr.shape.length > 0) header += ' '.repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - String(arr.shape[0]).length));
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad) + '\n';
  if (header.length > 0xffff) throw new RangeError(`encodeNpy: header of ${header.length} bytes does not fit format 1.0`);

  const data = new Uint8Array(arr.data.buffer, arr.data.byteOffset, arr.data.byteLength);
  const out = new Uint8Array(10 + header.length + data.length);
  out.set(MAGIC);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(Buffer.from(header, 'latin1'), 10);
  out.set(data, 10 + header.length);
  return out;
}

export function writeNpy(path: string, arr: NdArray): void {
  writeFileAtomically(path, encodeNpy(arr));
}
