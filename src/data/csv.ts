// A CSV data source: RFC 4180 text with a header line, one column of which is the label and all
// others numeric features. The text is tokenized by csv-parse, streamed chunk by chunk (a file is
// never held whole, and csv-parse keeps only the record it is in); its records go to CsvTable
// (csv-table.ts), which types the columns, maps class names and checks every value.
//
// csv-parse's options say what the format is:
// - fields are separated by ',' and records by LF, CRLF or a lone CR, mixed freely
//   (record_delimiter: all three, CRLF first); a trailing line break is accepted;
// - a UTF-8 byte order mark is dropped (bom; a UTF-16 one is refused: the text must be UTF-8);
//   blank lines (no characters at all) are skipped (skip_empty_lines);
// - a field that starts with '"' is quoted: it may hold ',', line breaks and '""' (one quote);
//   after its closing quote only ',', a line break or the end of the file may follow; a '"'
//   inside a field that does not start with one is an error (no relax_quotes);
// - every record has as many fields as the header (no relax_column_count);
// - fields stay text (no cast): csv-number.ts reads the numbers, exactly.
//
// Lines in messages are 1-based physical lines of the file (csv-position.ts); a record whose
// quoted fields hold line breaks is named by the line it starts on.

import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { CsvError, Parser, type Info, type Options } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { DataError } from '../shared/errors.ts';
import type { ClassMapping } from './classes.ts';
import { csvParseError } from './csv-parse-errors.ts';
import { CsvPosition } from './csv-position.ts';
import { CsvTable, type CsvDataset, type CsvSource } from './csv-table.ts';

export type { CsvDataset } from './csv-table.ts';

const CHUNK_BYTES = 1 << 20;

const FORMAT = { bom: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n', '\r'] } satisfies Options;

/** The chunks of `source`, each handed to `position` as it goes on to csv-parse. */
async function* kept(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, position: CsvPosition): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    position.add(chunk);
    yield chunk;
  }
}

/** Field `col` of the record `bytes` holds, undecoded. */
function fieldBytes(bytes: Uint8Array, col: number): Uint8Array {
  const [record] = parseSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), { ...FORMAT, bom: false, encoding: null }) as unknown as Uint8Array[][];
  return record![col]!;
}

/** A file csv-parse found a UTF-16 byte order mark in: class names and positions here are UTF-8's. */
function utf16(table: CsvTable): DataError {
  return table.error('starts with a UTF-16 byte order mark (FF FE): expected UTF-8 text', 'save the file as UTF-8 (in a spreadsheet: "CSV UTF-8")');
}

/**
 * Parses CSV text given as byte chunks (split anywhere, even inside a field or a CRLF): a file's
 * read stream, or chunks in memory. `src.path` is used only in messages.
 */
export async function parseCsv(
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  src: CsvSource,
  keyPath: string,
  classes: ClassMapping | null = null,
): Promise<CsvDataset> {
  const table = new CsvTable(src, keyPath, classes);
  const position = new CsvPosition();
  const parser = new Parser({
    ...FORMAT,
    on_record: (fields: string[], info: Info & { empty_lines: number }) => {
      if (parser.options.encoding !== 'utf8') throw utf16(table);
      const line = position.record(fields, info);
      table.record(fields, line, (col) => fieldBytes(position.recordBytes(), col));
      return null; // kept by the table, not passed on
    },
  });
  try {
    await pipeline(kept(chunks, position), parser);
  } catch (err) {
    throw err instanceof CsvError ? csvParseError(err, table, position) : err;
  }
  return table.end();
}

/**
 * Loads a CSV data source; `keyPath` (e.g. `data.train`) names its config entry in errors. With
 * labelType 'class', `classes` fixes the mapping (a name outside it is an error naming its line);
 * without, the sorted names found make it.
 */
export async function loadCsv(src: CsvSource, keyPath: string, classes: ClassMapping | null = null): Promise<CsvDataset> {
  try {
    return await parseCsv(fs.createReadStream(src.path, { highWaterMark: CHUNK_BYTES }), src, keyPath, classes);
  } catch (err) {
    if (err instanceof DataError) throw err;
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory, expected a CSV file' : `cannot be read (${e.code ?? e.message})`;
    throw new DataError(
      `${keyPath}: ${src.path}: ${why}`,
      `check ${keyPath}.path; relative paths in a config are resolved against the config file's directory`,
    );
  }
}
