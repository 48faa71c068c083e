// A CSV data source: RFC 4180 text with a header line, one column of which is the label and all
// others numeric features. Read as a stream of byte chunks by a small state machine, so a file
// is never held whole as a string and no regex runs per field:
//
// - fields are separated by ',' and records by LF, CRLF or a lone CR; a trailing line break and
//   a UTF-8 byte order mark are accepted; blank lines (no characters at all) are skipped;
// - a field that starts with '"' is quoted: it may hold ',', line breaks and '""' (one quote);
//   after its closing quote only ',', a line break or the end of the file may follow;
// - a value is a decimal number, optionally signed, with optional fraction and exponent
//   ("1", "-2.5", ".5", "1e-3"), spaces and tabs around it ignored; anything else (empty, "NaN",
//   "inf", "0x10") is an error, since a missing value must be filled in before training.
//
// Features become float32 [n, columns-1] in header order without the label column; labels are
// int32 [n] class indices (labelType 'index'), float32 [n, 1] (labelType 'float'), or int32 [n]
// class indices of class names (labelType 'class': any text, spaces and tabs around it ignored,
// mapped by the sorted list of the names found, or by a fixed list: see classes.ts). With
// `weight`, that column is each row's sample weight (finite, >= 0), not a feature.
//
// Lines in messages are 1-based physical lines of the file (the header is line 1); a record
// whose quoted fields hold line breaks is named by the line it starts on.

import fs from 'node:fs';
import type { DataSource } from '../shared/config/types.ts';
import { DataError } from '../shared/errors.ts';
import { byCodePoint, showClasses, type ClassMapping } from './classes.ts';
import { memoryColumn } from './columns.ts';
import type { HeldDataset } from './rows.ts';

/**
 * A CSV split: with labelType 'class', the class names its indices stand for, and (without a
 * fixed mapping) the line each first appears on, for messages.
 */
export type CsvDataset = HeldDataset & { classes: string[] | null; classLines?: number[] };

type CsvSource = Extract<DataSource, { type: 'csv' }>;

const COMMA = 0x2c;
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

const INT32_MAX = 0x7fffffff;
const CHUNK_BYTES = 1 << 20;
const BLOCK_VALUES = 1 << 20; // output is gathered in blocks of about this many values

// 10^0 .. 10^22: every one is exact in a double, which is what makes the fast path exact.
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

const WEIGHT = -2; // featureOf's mark of the weight column

const enum State {
  FieldStart, // before the first byte of a field
  Unquoted, // inside an unquoted field
  Quoted, // inside a quoted field
  QuoteInQuoted, // just read a '"' inside a quoted field: '""', or the closing quote
  AfterCr, // just ended a record with CR: a following LF belongs to it
}

const NOT_A_NUMBER = Symbol('not a number');

/**
 * Parses bytes [s, e) as a decimal number, or returns NOT_A_NUMBER. The value equals
 * Number(text) for the accepted syntax: up to 15 significant digits with a decimal exponent
 * within ±22 are computed exactly (Clinger's fast path: one correctly rounded multiply or divide
 * of two exact doubles), anything else goes through Number.
 */
function parseNumber(b: Uint8Array, s: number, e: number): number | typeof NOT_A_NUMBER {
  while (s < e && (b[s] === SPACE || b[s] === TAB)) s++;
  while (e > s && (b[e - 1] === SPACE || b[e - 1] === TAB)) e--;
  if (s === e) return NOT_A_NUMBER;
  let k = s;
  let negative = false;
  if (b[k] === MINUS) {
    negative = true;
    k++;
  } else if (b[k] === PLUS) k++;
  let mantissa = 0;
  let digits = 0;
  let significant = 0; // digits after leading zeros: what must fit the fast path
  let fraction = 0;
  let c = b[k]!;
  while (k < e && c >= ZERO && c <= NINE) {
    mantissa = mantissa * 10 + (c - ZERO);
    if (mantissa !== 0) significant++;
    digits++;
    c = b[++k]!;
  }
  if (k < e && c === DOT) {
    c = b[++k]!;
    while (k < e && c >= ZERO && c <= NINE) {
      mantissa = mantissa * 10 + (c - ZERO);
      if (mantissa !== 0) significant++;
      digits++;
      fraction++;
      c = b[++k]!;
    }
  }
  if (digits === 0) return NOT_A_NUMBER;
  let exponent = 0;
  if (k < e && (c === LOWER_E || c === UPPER_E)) {
    c = b[++k]!;
    let expNegative = false;
    if (k < e && (c === MINUS || c === PLUS)) {
      expNegative = c === MINUS;
      c = b[++k]!;
    }
    const expStart = k;
    while (k < e && c >= ZERO && c <= NINE) {
      if (exponent < 1e6) exponent = exponent * 10 + (c - ZERO);
      c = b[++k]!;
    }
    if (k === expStart) return NOT_A_NUMBER;
    if (expNegative) exponent = -exponent;
  }
  if (k !== e) return NOT_A_NUMBER;
  let value: number;
  const p = exponent - fraction;
  if (significant <= 15 && p >= -22 && p <= 22) {
    value = p === 0 ? mantissa : p > 0 ? mantissa * POW10[p]! : mantissa / POW10[-p]!;
  } else {
    value = Number(Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('latin1'));
    return value; // the text carries its own sign
  }
  return negative ? -value : value;
}

/**
 * Growable output in blocks that double up to about BLOCK_VALUES values, joined once at the end
 * (peak memory about twice the result). Every block holds whole rows.
 */
class Blocks<T extends Float32Array | Int32Array> {
  private readonly done: T[] = [];
  private current: T;
  private used = 0;
  private total = 0;
  private rows = 256;
  constructor(
    private readonly make: (n: number) => T,
    private readonly rowValues: number,
  ) {
    this.current = make(this.rows * rowValues);
  }
  /** Offset in `block` where the next row goes (the row is then written by the caller). */
  reserveRow(): number {
    if (this.used + this.rowValues > this.current.length) {
      this.done.push(this.current);
      this.rows = Math.max(this.rows, Math.min(this.rows * 2, Math.floor(BLOCK_VALUES / this.rowValues)));
      this.current = this.make(this.rows * this.rowValues);
      this.used = 0;
    }
    const at = this.used;
    this.used += this.rowValues;
    this.total += this.rowValues;
    return at;
  }
  get block(): T {
    return this.current;
  }
  finish(): T {
    if (this.done.length === 0 && this.used === this.current.length) return this.current;
    const out = this.make(this.total);
    let at = 0;
    for (const b of this.done) {
      out.set(b, at);
      at += b.length;
    }
    out.set(this.current.subarray(0, this.used), at);
    return out;
  }
}

/** Decoded field text for messages, shortened. */
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}

const utf8 = new TextDecoder('utf-8');
// A class name is a key: bytes that are not UTF-8 must not quietly become U+FFFD (and a class).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

class CsvParser {
  // Tokenizer state, carried from one chunk to the next.
  private state = State.FieldStart;
  private line = 1; // the physical line the next byte is on
  private recordLine = 1; // where the current record started
  private fieldIndex = 0; // fields of the current record completed so far
  private quotedLine = 1; // where the open quoted field started
  private prevCr = false; // inside a quoted field: the previous byte was CR
  private pending = new Uint8Array(256); // a field's bytes when quoted or split over chunks
  private pendingLen = 0;
  private atFileStart = true;
  private head = new Uint8Array(0); // the first bytes, until there are enough to look for a BOM
  private headerLine = 1;
  private records = 0; // including the header

  // Set once the header has been read.
  private header: string[] | null = null;
  private headerFields: string[] = [];
  private columns = 0;
  private labelCol = -1;
  private featureOf = new Int32Array(0); // column -> feature position, -1 for the label, -2 for the weight
  private weightCol = -1;
  private weights: Blocks<Float32Array> | null = null;
  private weightAt = 0;
  private features: Blocks<Float32Array> | null = null;
  private labels: Blocks<Float32Array> | Blocks<Int32Array> | null = null;
  private featureAt = 0;
  private labelAt = 0;
  // The first bad value of the current record: reported only if its field count is right.
  private bad: { column: number; text: string; why: 'number' | 'index' | 'range' | 'class' | 'unknown' | 'weight' | 'utf8' } | null = null;
  // labelType 'class': name -> index; without a fixed mapping, indices in first-seen order
  // (`seen`), sorted at the end.
  private readonly classIds = new Map<string, number>();
  private readonly seen: string[] = [];
  private readonly seenLines: number[] = []; // the line each of `seen` is first on

  constructor(
    private readonly src: CsvSource,
    private readonly keyPath: string,
    private readonly fixed: ClassMapping | null = null,
  ) {
    fixed?.classes.forEach((c, i) => this.classIds.set(c, i));
  }

  /** A class-name label: bytes [s, e) without the spaces and tabs around them. */
  private classLabel(b: Uint8Array, s: number, e: number, col: number): void {
    while (s < e && (b[s] === SPACE || b[s] === TAB)) s++;
    while (e > s && (b[e - 1] === SPACE || b[e - 1] === TAB)) e--;
    let name: string;
    try {
      name = strictUtf8.decode(b.subarray(s, e));
    } catch {
      this.bad ??= { column: col, text: utf8.decode(b.subarray(s, e)), why: 'utf8' };
      return;
    }
    let id = this.classIds.get(name);
    if (name === '') {
      this.bad ??= { column: col, text: name, why: 'class' };
      return;
    }
    if (id === undefined) {
      if (this.fixed) {
        this.bad ??= { column: col, text: name, why: 'unknown' };
        return;
      }
      id = this.seen.length;
      this.seen.push(name);
      this.seenLines.push(this.recordLine);
      this.classIds.set(name, id);
    }
    this.labels!.block[this.labelAt] = id;
  }

  private fail(message: string, hint?: string): never {
    throw new DataError(`${this.keyPath}: ${this.src.path} ${message}`, hint);
  }

  private columnName(col: number): string {
    const name = this.header?.[col];
    return name === undefined ? `column ${col + 1}` : `column ${quote(name)}`;
  }

  private appendPending(b: Uint8Array, s: number, e: number): void {
    const need = this.pendingLen + (e - s);
    if (need > this.pending.length) {
      const grown = new Uint8Array(Math.max(need, this.pending.length * 2));
      grown.set(this.pending.subarray(0, this.pendingLen));
      this.pending = grown;
    }
    this.pending.set(b.subarray(s, e), this.pendingLen);
    this.pendingLen = need;
  }

  private pushPendingByte(c: number): void {
    if (this.pendingLen === this.pending.length) {
      const grown = new Uint8Array(this.pending.length * 2);
      grown.set(this.pending);
      this.pending = grown;
    }
    this.pending[this.pendingLen++] = c;
  }

  /** One complete field: bytes [s, e) of `b`. */
  private field(b: Uint8Array, s: number, e: number): void {
    const col = this.fieldIndex++;
    if (this.header === null) {
      this.headerFields.push(utf8.decode(b.subarray(s, e)));
      return;
    }
    if (col >= this.columns) return; // counted; reported at the end of the record
    if (col === 0) {
      this.featureAt = this.features!.reserveRow();
      this.labelAt = this.labels!.reserveRow();
      if (this.weights) this.weightAt = this.weights.reserveRow();
    }
    const f = this.featureOf[col]!;
    if (col === this.labelCol && this.src.labelType === 'class') {
      this.classLabel(b, s, e, col);
      return;
    }
    const v = parseNumber(b, s, e);
    if (v === NOT_A_NUMBER) {
      // A label that is text (not a missing value) is a class name, or a mistake: the message says which key reads names.
      const text = utf8.decode(b.subarray(s, e));
      this.bad ??= { column: col, text, why: col === this.labelCol && this.src.labelType === 'index' && text.trim() !== '' ? 'index' : 'number' };
    } else if (f >= 0) {
      const x = Math.fround(v);
      if (!Number.isFinite(x)) this.bad ??= { column: col, text: utf8.decode(b.subarray(s, e)), why: 'range' };
      this.features!.block[this.featureAt + f] = x;
    } else if (f === WEIGHT) {
      const w = Math.fround(v);
      if (!Number.isFinite(w) || w < 0) this.bad ??= { column: col, text: utf8.decode(b.subarray(s, e)), why: 'weight' };
      this.weights!.block[this.weightAt] = w;
    } else if (this.src.labelType === 'index') {
      if (!Number.isInteger(v) || v < 0 || v > INT32_MAX) this.bad ??= { column: col, text: utf8.decode(b.subarray(s, e)), why: 'index' };
      this.labels!.block[this.labelAt] = v;
    } else {
      const x = Math.fround(v);
      if (!Number.isFinite(x)) this.bad ??= { column: col, text: utf8.decode(b.subarray(s, e)), why: 'range' };
      this.labels!.block[this.labelAt] = x;
    }
  }

  private endRecord(): void {
    const got = this.fieldIndex;
    this.fieldIndex = 0;
    this.records++;
    if (this.header === null) {
      this.headerLine = this.recordLine;
      this.setHeader(this.headerFields);
      return;
    }
    if (got !== this.columns) {
      this.fail(
        `line ${this.recordLine}: expected ${this.columns} fields (one per header column), got ${got}`,
        got > this.columns ? 'a value holding a comma must be quoted: "1,5"' : 'every row needs a value for every column of the header',
      );
    }
    const bad = this.bad;
    if (bad) {
      const where = `line ${this.recordLine}, column ${quote(this.header[bad.column]!)}`;
      if (bad.why === 'number')
        this.fail(`${where}: ${quote(bad.text)} is not a number`, 'every value must be a decimal number; fill in or drop rows with missing values');
      if (bad.why === 'range') this.fail(`${where}: ${quote(bad.text)} does not fit float32 (expected a finite value of magnitude below 3.4e38)`);
      if (bad.why === 'class') this.fail(`${where}: the class name is empty`, 'every row needs its label; fill in or drop rows with a missing label');
      if (bad.why === 'utf8') this.fail(`${where}: the class name ${quote(bad.text)} is not valid UTF-8 (U+FFFD marks the bytes)`, 'save the file as UTF-8');
      if (bad.why === 'unknown') {
        const f = this.fixed!;
        this.fail(`${where}: class ${quote(bad.text)} is not one of the ${f.classes.length} classes of ${f.from} (${showClasses(f.classes)})`, f.hint);
      }
      if (bad.why === 'weight')
        this.fail(
          `${where}: ${quote(bad.text)} is not a sample weight (expected a finite number >= 0)`,
          `${this.keyPath}.weight names the weight column: 0 leaves a row out of the loss, 1 counts it once`,
        );
      this.fail(
        `${where}: ${quote(bad.text)} is not a class index (expected a non-negative integer with labelType 'index')`,
        `for class names (e.g. "cat") set ${this.keyPath}.labelType: class; for regression targets set ${this.keyPath}.labelType: float`,
      );
    }
  }

  private setHeader(names: string[]): void {
    const wanted = this.src.label;
    const shown = names.length > 30 ? [...names.slice(0, 30).map(quote), `... (${names.length} in all)`] : names.map(quote);
    const list = shown.join(', ');
    const at = this.findColumn(names, wanted, 'label', list);
    this.labelCol = at;
    const weightCol = this.src.weight ? this.findWeightColumn(names, this.src.weight, list) : -1;
    if (names.length < (weightCol >= 0 ? 3 : 2))
      this.fail(
        `line ${this.headerLine}: the header has only the label${weightCol >= 0 ? ' and weight columns' : ` column ${quote(wanted)}`} (expected at least one feature column)`,
      );
    const twice = names.findIndex((n, c) => names.indexOf(n) !== c);
    if (twice >= 0)
      this.fail(
        `line ${this.headerLine}: columns ${names.indexOf(names[twice]!) + 1} and ${twice + 1} of the header are both named ${quote(names[twice]!)}`,
        'give every column a name of its own',
      );
    this.header = names;
    this.columns = names.length;
    this.weightCol = weightCol;
    this.featureOf = new Int32Array(names.length);
    for (let c = 0, f = 0; c < names.length; c++) this.featureOf[c] = c === at ? -1 : c === weightCol ? WEIGHT : f++;
    const nf = this.featureCount();
    if (weightCol >= 0) this.weights = new Blocks((n) => new Float32Array(n), 1);
    this.features = new Blocks((n) => new Float32Array(n), nf);
    this.labels = this.src.labelType !== 'float' ? new Blocks((n) => new Int32Array(n), 1) : new Blocks((n) => new Float32Array(n), 1);
  }

  private featureCount(): number {
    return this.columns - 1 - (this.weightCol >= 0 ? 1 : 0);
  }

  /**
   * The column `wanted` (data.<split>.<key>) names: by its exact name, else by the one name equal
   * to it without spaces around; absent or named more than once is an error (`list`: the columns).
   */
  private findColumn(names: string[], wanted: string, key: 'label' | 'weight', list: string): number {
    let at = names.indexOf(wanted);
    if (at < 0) {
      const trimmed = names.map((n) => n.trim());
      if (trimmed.filter((n) => n === wanted.trim()).length === 1) at = trimmed.indexOf(wanted.trim());
    }
    if (at < 0)
      this.fail(
        `line ${this.headerLine}: the header has no column ${quote(wanted)} (${this.keyPath}.${key}); its columns are ${list}`,
        `set ${this.keyPath}.${key} to the ${key} column's name`,
      );
    if (names.lastIndexOf(names[at]!) !== at)
      this.fail(
        `line ${this.headerLine}: the header names the ${key} column ${quote(wanted)} more than once; its columns are ${list}`,
        'rename the duplicate columns',
      );
    return at;
  }

  /** The weight column, found as the label column is; it must not be the label column. */
  private findWeightColumn(names: string[], wanted: string, list: string): number {
    const at = this.findColumn(names, wanted, 'weight', list);
    if (at === this.labelCol) this.fail(`line ${this.headerLine}: ${this.keyPath}.weight and ${this.keyPath}.label name the same column ${quote(wanted)}`);
    return at;
  }

  chunk(b: Uint8Array): void {
    let i = 0;
    if (this.atFileStart) {
      const first = this.fileStart(b);
      if (first === null) return;
      b = first;
      if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
    }
    const n = b.length;
    while (i < n) {
      switch (this.state) {
        case State.AfterCr:
          i = this.afterCr(b, i);
          break;
        case State.FieldStart:
          i = this.fieldStart(b, i);
          break;
        case State.Unquoted:
          i = this.unquoted(b, i, n);
          break;
        case State.Quoted:
          i = this.quoted(b, i, n);
          break;
        case State.QuoteInQuoted:
          i = this.quoteInQuoted(b, i);
          break;
      }
    }
  }

  /**
   * The first bytes of the file, with those held back: null while fewer than three have come (a
   * pipe's short first chunk), since a UTF-8 byte order mark (EF BB BF) is looked for in them.
   */
  private fileStart(b: Uint8Array): Uint8Array | null {
    if (this.head.length + b.length < 3) {
      this.head = Buffer.concat([this.head, b]);
      return null;
    }
    if (this.head.length > 0) {
      b = Buffer.concat([this.head, b]);
      this.head = new Uint8Array(0);
    }
    this.atFileStart = false;
    return b;
  }

  /** After a record ended with CR: a following LF belongs to it. Returns the next byte's index. */
  private afterCr(b: Uint8Array, i: number): number {
    this.state = State.FieldStart;
    if (b[i] === LF) return i + 1;
    return this.fieldStart(b, i);
  }

  /** The first byte of a field, b[i]: opens a quoted field, or reads an unquoted one. */
  private fieldStart(b: Uint8Array, i: number): number {
    if (this.fieldIndex === 0) this.recordLine = this.line;
    this.pendingLen = 0;
    if (b[i] === QUOTE) {
      this.state = State.Quoted;
      this.quotedLine = this.line;
      this.prevCr = false;
      return i + 1;
    }
    this.state = State.Unquoted;
    return this.unquoted(b, i, b.length);
  }

  /**
   * An unquoted field from b[i] (its start in this chunk) up to ',', a line break or the end of
   * the chunk (then kept in `pending` for the next one).
   */
  private unquoted(b: Uint8Array, i: number, n: number): number {
    let j = i;
    let c = 0;
    while (j < n) {
      c = b[j]!;
      if (c === COMMA || c === LF || c === CR) break;
      j++;
    }
    if (j === n) {
      this.appendPending(b, i, n);
      return n;
    }
    if (c !== COMMA && this.fieldIndex === 0 && this.pendingLen === 0 && j === i) {
      // a blank line: no record at all
    } else {
      if (this.pendingLen > 0) {
        this.appendPending(b, i, j);
        this.field(this.pending, 0, this.pendingLen);
        this.pendingLen = 0;
      } else {
        this.field(b, i, j);
      }
      if (c !== COMMA) this.endRecord();
    }
    if (c === COMMA) this.state = State.FieldStart;
    else {
      this.line++;
      this.state = c === CR ? State.AfterCr : State.FieldStart;
    }
    return j + 1;
  }

  /** Inside a quoted field: its bytes up to the next '"', counting the line breaks among them. */
  private quoted(b: Uint8Array, i: number, n: number): number {
    let j = i;
    let c = 0;
    while (j < n) {
      c = b[j]!;
      if (c === QUOTE) break;
      if (c === LF) {
        if (!this.prevCr) this.line++;
      } else if (c === CR) this.line++;
      this.prevCr = c === CR;
      j++;
    }
    this.appendPending(b, i, j);
    if (j < n) {
      this.prevCr = false;
      this.state = State.QuoteInQuoted;
    }
    return j + 1;
  }

  /** The byte after a '"' in a quoted field: '""' is one quote; else the field has ended. */
  private quoteInQuoted(b: Uint8Array, i: number): number {
    const c = b[i]!;
    if (c === QUOTE) {
      this.pushPendingByte(QUOTE);
      this.state = State.Quoted;
      return i + 1;
    }
    if (c !== COMMA && c !== LF && c !== CR) {
      this.fail(
        `line ${this.line}: unexpected ${quote(String.fromCharCode(c))} after the closing quote of a field (${this.columnName(this.fieldIndex)}) (expected ',' or the end of the line)`,
        'a quote inside a quoted field is written twice: "say ""hi"""',
      );
    }
    this.field(this.pending, 0, this.pendingLen);
    this.pendingLen = 0;
    if (c === COMMA) this.state = State.FieldStart;
    else {
      this.endRecord();
      this.line++;
      this.state = c === CR ? State.AfterCr : State.FieldStart;
    }
    return i + 1;
  }

  end(): CsvDataset {
    if (this.atFileStart) {
      this.atFileStart = false; // fewer than three bytes in the whole file: no BOM
      const head = this.head;
      this.head = new Uint8Array(0);
      this.chunk(head);
    }
    switch (this.state) {
      case State.Quoted:
        return this.fail(
          `line ${this.quotedLine}: a quoted field is never closed (the file ends inside it)`,
          "close the field with a '\"'; a quote inside a quoted field is written twice",
        );
      case State.QuoteInQuoted:
      case State.Unquoted:
        this.field(this.pending, 0, this.pendingLen);
        this.pendingLen = 0;
        this.endRecord();
        break;
      case State.FieldStart:
        if (this.fieldIndex > 0) {
          this.field(this.pending, 0, 0); // "a,b," at the end: an empty last field
          this.endRecord();
        }
        break;
      case State.AfterCr:
        break;
    }
    if (this.header === null) {
      this.fail('is empty (expected a header line naming the columns, then one line per sample)');
    }
    const count = this.records - 1;
    if (count === 0) this.fail(`has a header but no data rows (expected one line per sample after the header on line ${this.headerLine})`);
    const features = this.features!.finish();
    const labelData = this.labels!.finish();
    let classes: string[] | null = this.fixed ? [...this.fixed.classes] : null;
    let classLines: number[] | undefined;
    if (this.src.labelType === 'class' && !this.fixed) {
      // First-seen indices become indices into the sorted names.
      classes = [...this.seen].sort(byCodePoint);
      const firstLine = new Map(this.seen.map((name, i) => [name, this.seenLines[i]!]));
      classLines = classes.map((name) => firstLine.get(name)!);
      const at = new Map(classes.map((name, i) => [name, i]));
      const sortedIndex = Int32Array.from(this.seen, (name) => at.get(name)!);
      for (let i = 0; i < labelData.length; i++) labelData[i] = sortedIndex[labelData[i]!]!;
    }
    const nf = this.featureCount();
    const weights = this.weights?.finish();
    return {
      features: memoryColumn({ dtype: 'float32', shape: [count, nf], data: features }),
      labels: memoryColumn(
        labelData instanceof Int32Array ? { dtype: 'int32', shape: [count], data: labelData } : { dtype: 'float32', shape: [count, 1], data: labelData },
      ),
      count,
      source: `${this.src.path} (label column ${quote(this.header[this.labelCol]!)}${weights ? `, weight column ${quote(this.header[this.weightCol]!)}` : ''})`,
      classes: this.src.labelType === 'class' ? classes : null,
      ...(classLines ? { classLines } : {}),
      ...(weights ? { weights: { dtype: 'float32' as const, shape: [count], data: weights } } : {}),
    };
  }
}

/**
 * Parses CSV text given as byte chunks (split anywhere, even inside a field or a CRLF): the
 * in-memory core of loadCsv. `src.path` is used only in messages.
 */
export function parseCsv(chunks: Iterable<Uint8Array>, src: CsvSource, keyPath: string, classes: ClassMapping | null = null): CsvDataset {
  const parser = new CsvParser(src, keyPath, classes);
  for (const chunk of chunks) parser.chunk(chunk);
  return parser.end();
}

/**
 * Loads a CSV data source; `keyPath` (e.g. `data.train`) names its config entry in errors. With
 * labelType 'class', `classes` fixes the mapping (a name outside it is an error naming its line);
 * without, the sorted names found make it.
 */
export async function loadCsv(src: CsvSource, keyPath: string, classes: ClassMapping | null = null): Promise<CsvDataset> {
  const parser = new CsvParser(src, keyPath, classes);
  try {
    const stream = fs.createReadStream(src.path, { highWaterMark: CHUNK_BYTES });
    // A plain Uint8Array view: the hot loops then see one array type, not Buffer and Uint8Array.
    for await (const chunk of stream) parser.chunk(new Uint8Array((chunk as Buffer).buffer, (chunk as Buffer).byteOffset, (chunk as Buffer).length));
  } catch (err) {
    if (err instanceof DataError) throw err;
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory, expected a CSV file' : `cannot be read (${e.code ?? e.message})`;
    throw new DataError(
      `${keyPath}: ${src.path}: ${why}`,
      `check ${keyPath}.path; relative paths in a config are resolved against the config file's directory`,
    );
  }
  return parser.end();
}
