// Where a CSV record or a quoting error is: the physical line of the file (the header is line 1),
// as an editor counts it, LF, CRLF and a lone CR each ending one line.
//
// csv-parse's own count (info.lines) agrees between records, but counts a CRLF inside a quoted
// field as two lines and names a record by the line it ends on. So a record's line is worked out
// here from the previous record's end: the blank lines csv-parse skipped (info.empty_lines) come
// between, and a record whose quoted fields hold line breaks (its csv-parse count grew by more
// than one) ends as many physical lines later as its fields hold.
//
// A quoting error comes before its record is complete: its line is counted in the bytes of that
// record, kept here from the end of the previous record on (at most one read chunk plus the record:
// memory stays bounded), from the byte offsets csv-parse reports (info.bytes: the end of the last
// field or record read, counted from the start of the file).

const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;

/** Physical line breaks in `text` (a CRLF is one). */
export function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== LF) n++;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Physical line breaks in bytes [s, e) of `b`. */
function byteLineBreaks(b: Uint8Array, s: number, e: number): number {
  let n = 0;
  for (let i = s; i < e; i++) if (b[i] === LF || (b[i] === CR && b[i + 1] !== LF)) n++;
  return n;
}

/** The csv-parse counts a record or an error carries (its `info`). */
export interface ParseCounts {
  lines: number;
  empty_lines: number;
  bytes: number;
}

export class CsvPosition {
  private endLine = 0; // the physical line the last record ended on (0 before the first)
  private parsedEnd = 0; // csv-parse's count of that line
  private skipped = 0; // csv-parse's empty_lines then
  private recordStart = 0; // the byte offset where the last record (with the blank lines before it) starts
  private recordEnd = 0; // the byte offset just after the last record (and its line break)
  private kept: Uint8Array[] = []; // the bytes read from `keptFrom` on, as read
  private keptFrom = 0;
  private read = 0;

  /** A chunk as it goes to csv-parse. */
  add(chunk: Uint8Array): void {
    this.kept.push(chunk);
    this.read += chunk.length;
  }

  /** The line a record csv-parse has just given (`fields`, `info`) starts on. */
  record(fields: string[], info: ParseCounts): number {
    const blank = info.empty_lines - this.skipped;
    const start = this.endLine + 1 + blank;
    const spansLines = info.lines !== this.parsedEnd + 1 + blank;
    this.endLine = spansLines ? start + fields.reduce((n, f) => n + lineBreaks(f), 0) : start;
    this.parsedEnd = info.lines;
    this.skipped = info.empty_lines;
    while (this.kept.length > 1 && this.keptFrom + this.kept[0]!.length <= this.recordEnd) this.keptFrom += this.kept.shift()!.length;
    this.recordStart = this.recordEnd;
    this.recordEnd = info.bytes;
    return start;
  }

  /** The bytes of the record record() was last given, blank lines before it and its line break included. */
  recordBytes(): Uint8Array {
    return Buffer.concat(this.kept).subarray(this.recordStart - this.keptFrom, this.recordEnd - this.keptFrom);
  }

  /** The line a record that csv-parse refused (with `info`) starts on. */
  refusedRecord(info: ParseCounts): number {
    return this.endLine + 1 + info.empty_lines - this.skipped;
  }

  /** The bytes of the current record so far, blank lines before it included. */
  currentBytes(): Uint8Array {
    const all = Buffer.concat(this.kept);
    return all.subarray(this.recordEnd - this.keptFrom, this.read - this.keptFrom);
  }

  /**
   * Where field `column` of the current record starts and the line it is on: the first byte after
   * the blank lines for column 0, else the byte after the delimiter csv-parse last read (at
   * `info.bytes`). With `bytes` (currentBytes()), the offset is into it.
   */
  fieldStart(bytes: Uint8Array, column: number, info: ParseCounts): { at: number; line: number } {
    let at = column > 0 ? info.bytes - this.recordEnd + 1 : 0;
    if (column === 0) {
      if (this.recordEnd === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) at = 3; // a byte order mark
      while (bytes[at] === CR || bytes[at] === LF) at++;
    }
    return { at, line: this.lineAt(bytes, at) };
  }

  /** The line of offset `at` in currentBytes() `bytes`. */
  lineAt(bytes: Uint8Array, at: number): number {
    return this.endLine + 1 + byteLineBreaks(bytes, 0, at);
  }

  /** The offset of the closing quote of the quoted field that opens at `at` in `bytes`. */
  static closingQuote(bytes: Uint8Array, at: number): number {
    let i = bytes.indexOf(QUOTE, at + 1);
    while (i >= 0 && bytes[i + 1] === QUOTE) i = bytes.indexOf(QUOTE, i + 2);
    return i;
  }
}
