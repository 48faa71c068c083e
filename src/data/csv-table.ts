// A CSV split built record by record from the tokenizer's fields (csv.ts feeds it csv-parse's
// records): the header names the columns, one of which is the label and all others numeric
// features (or, with `weight`, each row's sample weight). What is this project's own lives here:
//
// - values follow csv-number.ts's rules and become float32 (exactly Math.fround(Number(text)));
// - features are float32 [n, columns-1] in header order without the label (and weight) column;
//   labels are int32 [n] class indices (labelType 'index'), float32 [n, 1] ('float'), or int32 [n]
//   indices of class names ('class': any text, spaces and tabs around it ignored, mapped by the
//   sorted list of the names found, or by a fixed list: see classes.ts);
// - a weight is finite and >= 0;
// - a row's first bad value is reported naming the file, the line the row starts on, the column
//   and the text, with a hint.

import type { DataSource } from '../config/types.ts';
import { DataError } from '../shared/errors.ts';
import { byCodePoint, showClasses, type ClassMapping } from './classes.ts';
import { Blocks } from './csv-blocks.ts';
import { NOT_A_NUMBER, parseNumber, trimSpaceTab } from './csv-number.ts';
import { memoryColumn } from './columns.ts';
import type { HeldDataset } from './rows.ts';

/**
 * A CSV split: with labelType 'class', the class names its indices stand for, and (without a
 * fixed mapping) the line each first appears on, for messages.
 */
export type CsvDataset = HeldDataset & { classes: string[] | null; classLines?: number[] };

export type CsvSource = Extract<DataSource, { type: 'csv' }>;

const INT32_MAX = 0x7fffffff;
const WEIGHT = -2; // featureOf's mark of the weight column
const LABEL = -1;

type Why = 'number' | 'index' | 'range' | 'class' | 'unknown' | 'weight' | 'utf8';

// A class name is a key: bytes that are not UTF-8 must not quietly become U+FFFD (and a class).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decoded field text for messages, shortened. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}

export class CsvTable {
  private header: string[] | null = null;
  private headerLine = 1;
  private labelCol = -1;
  private weightCol = -1;
  private featureOf = new Int32Array(0); // column -> feature position, LABEL, or WEIGHT
  private features: Blocks<Float32Array> | null = null;
  private labels: Blocks<Float32Array> | Blocks<Int32Array> | null = null;
  private weights: Blocks<Float32Array> | null = null;
  private rows = 0;
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

  /** A DataError naming the config key and the file, then `message`. */
  error(message: string, hint?: string): DataError {
    return new DataError(`${this.keyPath}: ${this.src.path} ${message}`, hint);
  }

  private fail(message: string, hint?: string): never {
    throw this.error(message, hint);
  }

  /** Column `col` for messages: its header name, or its number while the header is being read. */
  columnName(col: number): string {
    const name = this.header?.[col];
    return name === undefined ? `column ${col + 1}` : `column ${quote(name)}`;
  }

  /** The header's field count once read (csv-parse checks every record against it). */
  get columns(): number {
    return this.header?.length ?? 0;
  }

  /**
   * One record, starting on `line`: the header, then the rows. `fieldBytes(col)` gives a field's
   * undecoded bytes (asked only for a class name that decoded to U+FFFD, to tell a U+FFFD in the
   * file from bytes that are not UTF-8).
   */
  record(fields: string[], line: number, fieldBytes: (col: number) => Uint8Array): void {
    if (this.header === null) this.setHeader(fields, line);
    else this.row(fields, line, fieldBytes);
  }

  private row(fields: string[], line: number, fieldBytes: (col: number) => Uint8Array): void {
    const featureAt = this.features!.reserveRow();
    const labelAt = this.labels!.reserveRow();
    const weightAt = this.weights ? this.weights.reserveRow() : 0;
    const fb = this.features!.block;
    this.rows++;
    for (let col = 0; col < fields.length; col++) {
      const text = fields[col]!;
      const f = this.featureOf[col]!;
      if (f === LABEL && this.src.labelType === 'class') {
        this.labels!.block[labelAt] = this.classLabel(text, col, line, fieldBytes);
        continue;
      }
      const v = parseNumber(text);
      if (v === NOT_A_NUMBER) {
        // A label that is text (not a missing value) is a class name, or a mistake: the message says which key reads names.
        this.bad(line, col, text, f === LABEL && this.src.labelType === 'index' && text.trim() !== '' ? 'index' : 'number');
      } else if (f >= 0) {
        const x = Math.fround(v);
        if (!Number.isFinite(x)) this.bad(line, col, text, 'range');
        fb[featureAt + f] = x;
      } else if (f === WEIGHT) {
        const w = Math.fround(v);
        if (!Number.isFinite(w) || w < 0) this.bad(line, col, text, 'weight');
        this.weights!.block[weightAt] = w;
      } else if (this.src.labelType === 'index') {
        if (!Number.isInteger(v) || v < 0 || v > INT32_MAX) this.bad(line, col, text, 'index');
        this.labels!.block[labelAt] = v;
      } else {
        const x = Math.fround(v);
        if (!Number.isFinite(x)) this.bad(line, col, text, 'range');
        this.labels!.block[labelAt] = x;
      }
    }
  }

  /** A class-name label's index, or an error (a fixed mapping without it, empty, not UTF-8). */
  private classLabel(text: string, col: number, line: number, fieldBytes: (col: number) => Uint8Array): number {
    const name = trimSpaceTab(text);
    if (name.includes('\uFFFD')) {
      try {
        strictUtf8.decode(fieldBytes(col));
      } catch {
        this.bad(line, col, name, 'utf8');
      }
    }
    if (name === '') this.bad(line, col, name, 'class');
    let id = this.classIds.get(name);
    if (id === undefined) {
      if (this.fixed) this.bad(line, col, name, 'unknown');
      id = this.seen.length;
      this.seen.push(name);
      this.seenLines.push(line);
      this.classIds.set(name, id);
    }
    return id;
  }

  /** The first bad value of a row (csv-parse has checked its field count already). */
  private bad(line: number, column: number, text: string, why: Why): never {
    const where = `line ${line}, column ${quote(this.header![column]!)}`;
    switch (why) {
      case 'number':
        return this.fail(`${where}: ${quote(text)} is not a number`, 'every value must be a decimal number; fill in or drop rows with missing values');
      case 'range':
        return this.fail(`${where}: ${quote(text)} does not fit float32 (expected a finite value of magnitude below 3.4e38)`);
      case 'class':
        return this.fail(`${where}: the class name is empty`, 'every row needs its label; fill in or drop rows with a missing label');
      case 'utf8':
        return this.fail(`${where}: the class name ${quote(text)} is not valid UTF-8 (U+FFFD marks the bytes)`, 'save the file as UTF-8');
      case 'unknown': {
        const f = this.fixed!;
        return this.fail(`${where}: class ${quote(text)} is not one of the ${f.classes.length} classes of ${f.from} (${showClasses(f.classes)})`, f.hint);
      }
      case 'weight':
        return this.fail(
          `${where}: ${quote(text)} is not a sample weight (expected a finite number >= 0)`,
          `${this.keyPath}.weight names the weight column: 0 leaves a row out of the loss, 1 counts it once`,
        );
      case 'index':
        return this.fail(
          `${where}: ${quote(text)} is not a class index (expected a non-negative integer with labelType 'index')`,
          `for class names (e.g. "cat") set ${this.keyPath}.labelType: class; for regression targets set ${this.keyPath}.labelType: float`,
        );
    }
  }

  private setHeader(names: string[], line: number): void {
    this.headerLine = line;
    const wanted = this.src.label;
    const shown = names.length > 30 ? [...names.slice(0, 30).map(quote), `... (${names.length} in all)`] : names.map(quote);
    const list = shown.join(', ');
    const at = this.findColumn(names, wanted, 'label', list);
    this.labelCol = at;
    const weightCol = this.src.weight ? this.findWeightColumn(names, this.src.weight, list) : -1;
    if (names.length < (weightCol >= 0 ? 3 : 2))
      this.fail(
        `line ${line}: the header has only the label${weightCol >= 0 ? ' and weight columns' : ` column ${quote(wanted)}`} (expected at least one feature column)`,
      );
    const twice = names.findIndex((n, c) => names.indexOf(n) !== c);
    if (twice >= 0)
      this.fail(
        `line ${line}: columns ${names.indexOf(names[twice]!) + 1} and ${twice + 1} of the header are both named ${quote(names[twice]!)}`,
        'give every column a name of its own',
      );
    this.header = names;
    this.weightCol = weightCol;
    this.featureOf = new Int32Array(names.length);
    for (let c = 0, f = 0; c < names.length; c++) this.featureOf[c] = c === at ? LABEL : c === weightCol ? WEIGHT : f++;
    if (weightCol >= 0) this.weights = new Blocks((n) => new Float32Array(n), 1);
    this.features = new Blocks((n) => new Float32Array(n), this.featureCount());
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

  /** The split, once every record has been given; a file without a header or rows is an error. */
  end(): CsvDataset {
    if (this.header === null) this.fail('is empty (expected a header line naming the columns, then one line per sample)');
    const count = this.rows;
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
    const weights = this.weights?.finish();
    return {
      features: memoryColumn({ dtype: 'float32', shape: [count, this.featureCount()], data: features }),
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
