// The records of an image list CSV, read as RFC 4180 says (predict writes its CSV so): a field
// that starts with '"' is quoted, may hold ',' and line breaks, and '""' in it is one quote;
// other fields are as they are, spaces around them dropped. Each record keeps the line it
// starts on, for errors.

export interface ListRecord {
  fields: string[];
  quoted: boolean[]; // whether each field was quoted
  raw: string[]; // each unquoted field with its spaces (a path that holds ', ' is joined back from them)
  line: number; // 1-based, where the record starts
}

/** The non-empty records of `text`; a quote left open or text after a closing quote is `fail(line, why)`. */
export function listRecords(text: string, fail: (line: number, why: string) => Error): ListRecord[] {
  const out: ListRecord[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const rec: ListRecord = { fields: [], quoted: [], raw: [], line };
    for (;;) {
      const from = i;
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (text[i] === '"') {
        const start = line;
        let value = '';
        for (i++; ; i++) {
          if (i >= text.length) throw fail(start, 'a quoted field is not closed (a \'"\' inside one is written "")');
          if (text[i] === '"' && text[i + 1] === '"') {
            value += '"';
            i++;
          } else if (text[i] === '"') break;
          else {
            if (text[i] === '\n') line++;
            value += text[i]!;
          }
        }
        i++;
        while (text[i] === ' ' || text[i] === '\t' || text[i] === '\r') i++;
        if (i < text.length && text[i] !== ',' && text[i] !== '\n') throw fail(line, 'text after the closing quote of a quoted field');
        rec.fields.push(value);
        rec.quoted.push(true);
        rec.raw.push(value);
      } else {
        let end = i;
        while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++;
        rec.fields.push(text.slice(i, end).trim());
        rec.quoted.push(false);
        rec.raw.push(text.slice(from, end));
        i = end;
      }
      if (text[i] !== ',') break;
      i++;
    }
    if (text[i] === '\n') {
      i++;
      line++;
    }
    if (!(rec.fields.length === 1 && rec.fields[0] === '' && !rec.quoted[0])) out.push(rec);
  }
  return out;
}
