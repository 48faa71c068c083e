// The index of an image list: a CSV of path,label lines (an optional first line `path,label`),
// each path relative to the CSV's folder (or absolute), the label a class name (spaces around
// it ignored); fields quoted as RFC 4180 says (list-records.ts), an unquoted path may hold
// commas (the label is after the last one). Classes: the sorted names found, as a CSV source's
// labelType: class, or the fixed mapping given (eval: the training classes).
import fs from 'node:fs';
import path from 'node:path';
import { DataError } from '../../shared/errors.ts';
import { byCodePoint, showClasses, type ClassMapping } from '../classes.ts';
import type { ImageIndex } from './folder-index.ts';
import { extOf } from './folder-index.ts';
import { FoundFiles } from './found-files.ts';
import { listRecords } from './list-records.ts';
import { PathTable } from './path-table.ts';

const LINE_HINT = 'one image per line: its path (relative to the CSV), a comma, its class name; a path holding a comma is quoted: "x,y.jpg",cat';

export function indexList(file: string, keyPath: string, fixed: ClassMapping | null): ImageIndex {
  const root = path.dirname(file);
  const records = listRecords(fs.readFileSync(file, 'utf8'), (line, why) => new DataError(`${keyPath}: ${file} line ${line}: ${why}`, LINE_HINT));
  const paths: string[] = [];
  const names: string[] = [];
  const lineOf: number[] = [];
  const found = new FoundFiles();
  records.forEach((r, i) => {
    if (i === 0 && r.fields.length === 2 && r.fields.every((f, k) => f.toLowerCase() === ['path', 'label'][k])) return;
    const where = `${keyPath}: ${file} line ${r.line}`;
    if (r.fields.length < 2) throw new DataError(`${where}: expected path,label, got ${JSON.stringify(r.fields[0]!.slice(0, 80))}`, LINE_HINT);
    // An unquoted path may hold commas (the label is after the last one), as before quoting was read.
    const rel = r.fields.length === 2 ? r.fields[0]! : r.raw.slice(0, -1).join(',').trim();
    const name = r.fields.at(-1)!;
    if (r.fields.length > 2 && r.quoted.some(Boolean))
      throw new DataError(`${where}: ${r.fields.length} fields (expected 2: path,label)`, 'quote a path that holds a comma: "x,y.jpg",cat');
    if (rel === '' || name === '') throw new DataError(`${where}: the ${rel === '' ? 'path' : 'class name'} is empty`, LINE_HINT);
    if (!fs.existsSync(path.resolve(root, rel))) {
      if (i === 0 && extOf(rel) === '') throw otherHeader(where, r.fields);
      throw new DataError(`${where}: image not found: ${path.resolve(root, rel)}`, `paths are relative to the CSV's folder, ${root}`);
    }
    paths.push(rel);
    names.push(name);
    lineOf.push(r.line);
    found.add(found.images, extOf(rel).slice(1));
  });
  if (paths.length === 0) throw new DataError(`${keyPath}: ${file} lists no images`, 'one image per line: path,label (paths relative to the CSV)');
  const classes = fixed ? [...fixed.classes] : [...new Set(names)].sort(byCodePoint);
  const at = new Map(classes.map((c, i) => [c, i]));
  const labels = new Int32Array(names.length);
  names.forEach((n, i) => {
    const label = at.get(n);
    if (label === undefined)
      throw new DataError(
        `${keyPath}: ${file} line ${lineOf[i]}: class ${JSON.stringify(n)} (of ${paths[i]}) is not one of the ${classes.length} classes of ${fixed!.from} (${showClasses(classes)})`,
        fixed!.hint,
      );
    labels[i] = label;
  });
  return { paths: PathTable.of(root, paths), labels, classes, found };
}

/** A first line that is not an image: a header, but not the one a list has. */
function otherHeader(where: string, fields: string[]): DataError {
  return new DataError(
    `${where}: the header ${JSON.stringify(fields.join(','))} is not path,label (expected the header path,label, or none: a first line naming an image)`,
    'name the columns path,label (the image path first, its class name second), or drop the header line',
  );
}
