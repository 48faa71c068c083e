// The index of an image list: a CSV of path,label lines (an optional first line `path,label`),
// each path relative to the CSV's folder (or absolute), the label a class name (any text after
// the last comma, spaces around it ignored). Classes: the sorted names found, as a CSV source's
// labelType: class, or the fixed mapping given (eval: the training classes).
import fs from 'node:fs';
import path from 'node:path';
import { DataError } from '../../shared/errors.ts';
import { byCodePoint, showClasses, type ClassMapping } from '../classes.ts';
import type { ImageIndex } from './folder-index.ts';
import { extOf } from './folder-index.ts';
import { FoundFiles } from './found-files.ts';
import { PathTable } from './path-table.ts';

export function indexList(file: string, keyPath: string, fixed: ClassMapping | null): ImageIndex {
  const root = path.dirname(file);
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const paths: string[] = [];
  const names: string[] = [];
  const lineOf: number[] = [];
  const found = new FoundFiles();
  lines.forEach((line, i) => {
    if (line.trim() === '' || (i === 0 && /^\s*path\s*,\s*label\s*$/i.test(line))) return;
    const comma = line.lastIndexOf(',');
    const where = `${keyPath}: ${file} line ${i + 1}`;
    if (comma < 0)
      throw new DataError(
        `${where}: expected path,label, got ${JSON.stringify(line.slice(0, 80))}`,
        'one image per line: its path (relative to the CSV), a comma, its class name',
      );
    const rel = line.slice(0, comma).trim();
    const name = line.slice(comma + 1).trim();
    if (rel === '' || name === '') throw new DataError(`${where}: the ${rel === '' ? 'path' : 'class name'} is empty`, 'one image per line: path,label');
    if (!fs.existsSync(path.resolve(root, rel)))
      throw new DataError(`${where}: image not found: ${path.resolve(root, rel)}`, `paths are relative to the CSV's folder, ${root}`);
    paths.push(rel);
    names.push(name);
    lineOf.push(i + 1);
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
