// csv-parse's errors (err.code, and the counts of its `info` on the error) as this project's
// DataError: the file, the physical line (csv-position.ts), the column, and a hint saying how
// the text is written instead.

import { CsvError } from 'csv-parse';
import { DataError } from '../shared/errors.ts';
import { CsvPosition, type ParseCounts } from './csv-position.ts';
import { quote, type CsvTable } from './csv-table.ts';

// The context csv-parse puts on its errors: with records as arrays, `column` is the field's index;
// `record` comes with a wrong field count, `field` (the text so far) with a misplaced quote.
type CsvErrorInfo = CsvError & ParseCounts & { column: number; field?: string; record?: string[] };

const QUOTE_HINT = 'a quote inside a quoted field is written twice: "say ""hi"""';

/** `err` (thrown by csv-parse) as a DataError naming where in the file it is. */
export function csvParseError(err: CsvError, table: CsvTable, position: CsvPosition): DataError {
  const e = err as CsvErrorInfo;
  const column = e.column;
  switch (e.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = e.record!.length;
      return table.error(
        `line ${position.refusedRecord(e)}: expected ${table.columns} fields (one per header column), got ${got}`,
        got > table.columns ? 'a value holding a comma must be quoted: "1,5"' : 'every row needs a value for every column of the header',
      );
    }
    case 'CSV_QUOTE_NOT_CLOSED': {
      const { line } = position.fieldStart(position.currentBytes(), column, e);
      return table.error(
        `line ${line}: a quoted field is never closed (the file ends inside it)`,
        "close the field with a '\"'; a quote inside a quoted field is written twice",
      );
    }
    case 'CSV_INVALID_CLOSING_QUOTE': {
      const bytes = position.currentBytes();
      const closing = CsvPosition.closingQuote(bytes, position.fieldStart(bytes, column, e).at);
      const after = String.fromCharCode(bytes[closing + 1]!);
      return table.error(
        `line ${position.lineAt(bytes, closing)}: unexpected ${quote(after)} after the closing quote of a field (${table.columnName(column)}) (expected ',' or the end of the line)`,
        QUOTE_HINT,
      );
    }
    case 'INVALID_OPENING_QUOTE': {
      const { line } = position.fieldStart(position.currentBytes(), column, e);
      return table.error(
        `line ${line}, ${table.columnName(column)}: a '"' in the middle of a field that is not quoted (after ${quote(e.field!)})`,
        'a field holding a quote is quoted, its quotes written twice: "say ""hi"""',
      );
    }
    default:
      return table.error(`line ${position.refusedRecord(e)}: ${e.message}`);
  }
}
