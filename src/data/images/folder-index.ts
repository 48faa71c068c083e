// The index of an image folder: one subfolder per class (searched to any depth, symlinks
// followed), classes sorted by code point as torchvision's ImageFolder and Keras sort them, the
// files of each class sorted the same way. Hidden files and folders (a leading '.') are skipped,
// and so are files of other extensions; both are counted for the header.
import fs from 'node:fs';
import path from 'node:path';
import { DataError } from '../../shared/errors.ts';
import { byCodePoint, showClasses, type ClassMapping } from '../classes.ts';
import { FoundFiles } from './found-files.ts';
import { PathTable } from './path-table.ts';

export interface ImageIndex {
  paths: PathTable;
  labels: Int32Array; // class index of each file
  classes: string[]; // the names the indices stand for
  found: FoundFiles;
}

/** `fixed`: the mapping to label with (eval: the training classes); null: the folder's own classes. */
export function indexFolder(dir: string, keyPath: string, exts: readonly string[], fixed: ClassMapping | null): ImageIndex {
  const found = new FoundFiles();
  const folders: string[] = [];
  const loose: string[] = []; // images directly in dir, outside any class folder
  for (const e of readDir(dir)) {
    if (e.name.startsWith('.')) found.hidden++;
    else if (isDir(path.join(dir, e.name), e)) folders.push(e.name);
    else {
      found.add(found.skipped, extOf(e.name).slice(1));
      if (exts.includes(extOf(e.name))) loose.push(path.join(dir, e.name));
    }
  }
  loose.sort(byCodePoint);
  if (loose.length > 0) found.warnings.push(looseImages(keyPath, dir, loose));
  folders.sort(byCodePoint);
  const classes = fixed ? [...fixed.classes] : folders;
  const paths: string[] = [];
  const labels: number[] = [];
  for (const name of folders) {
    const label = classes.indexOf(name);
    if (label < 0) throw unknownClass(keyPath, dir, name, fixed!);
    const before = paths.length;
    walk(path.join(dir, name), name, exts, found, paths, [fs.realpathSync(dir)]);
    for (let i = before; i < paths.length; i++) labels.push(label);
    if (paths.length === before) found.warnings.push(`warning: ${keyPath}: class folder ${path.join(dir, name)} holds no images (${exts.join(' ')})`);
  }
  if (paths.length === 0) throw noImages(keyPath, dir, exts, folders.length, found, loose);
  return { paths: PathTable.of(dir, paths), labels: Int32Array.from(labels), classes, found };
}

export function extOf(name: string): string {
  return path.extname(name).toLowerCase();
}

function readDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new DataError(`cannot list the folder ${dir}: ${(err as Error).message}`, 'check that it exists and that this user may read it');
  }
}

function isDir(full: string, e: fs.Dirent): boolean {
  if (e.isDirectory()) return true;
  if (!e.isSymbolicLink()) return false;
  try {
    return fs.statSync(full).isDirectory();
  } catch {
    return false; // a dangling link: a file that cannot be read, skipped as another file
  }
}

/**
 * The images below `dir` at any depth (symlinked folders followed, hidden ones skipped), sorted
 * by code point, as paths joined to `dir`: the walk a class folder gets, for predict --input.
 */
export function imagesBelow(dir: string, exts: readonly string[]): string[] {
  const rel: string[] = [];
  walk(dir, '', exts, new FoundFiles(), rel, []);
  return rel.map((r) => path.join(dir, r));
}

/** Adds the images under `full` (relative paths from the split's folder, sorted) to `out`. */
function walk(full: string, rel: string, exts: readonly string[], found: FoundFiles, out: string[], stack: string[]): void {
  const real = fs.realpathSync(full);
  const loop = stack.indexOf(real);
  if (loop >= 0)
    throw new DataError(
      `symlink loop: ${full} leads back to ${stack[loop]} (a folder it is inside)`,
      'remove the link, or point it at a folder outside the class folder',
    );
  const entries = readDir(full).sort((a, b) => byCodePoint(a.name, b.name));
  for (const e of entries) {
    const child = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.name.startsWith('.')) found.hidden++;
    else if (isDir(path.join(full, e.name), e)) walk(path.join(full, e.name), child, exts, found, out, [...stack, real]);
    else if (exts.includes(extOf(e.name))) {
      out.push(child);
      found.add(found.images, extOf(e.name).slice(1));
    } else found.add(found.skipped, extOf(e.name).slice(1));
  }
}

function looseImages(keyPath: string, dir: string, loose: string[]): string {
  const n = loose.length;
  return `warning: ${keyPath}: ${n} image${n === 1 ? '' : 's'} directly in ${dir}, outside any class folder, left out (e.g. ${loose[0]}): images must be in class folders, ${path.join(dir, '<class>', path.basename(loose[0]!))}`;
}

function unknownClass(keyPath: string, dir: string, name: string, fixed: ClassMapping): DataError {
  return new DataError(
    `${keyPath}: class folder ${path.join(dir, name)} is not one of the ${fixed.classes.length} classes of ${fixed.from} (${showClasses(fixed.classes)})`,
    fixed.hint ?? 'the model has one output per class of data.train: give data.train that class too, or remove the folder',
  );
}

function noImages(keyPath: string, dir: string, exts: readonly string[], folders: number, found: FoundFiles, loose: string[]): DataError {
  const outside = loose.length > 0 ? `, of which ${loose.length} image${loose.length === 1 ? '' : 's'} outside any class folder (e.g. ${loose[0]})` : '';
  const seen = found.skipped.size + found.hidden > 0 ? `; found ${found.describeSkipped().replace(/^skipped /, '')}${outside}` : '';
  return new DataError(
    `${keyPath}: no images in ${dir} (${folders} class folder${folders === 1 ? '' : 's'}; looked for ${exts.join(' ')}, any case)${seen}`,
    folders === 0
      ? 'put the images in one subfolder per class: dir/cat/1.jpg, dir/dog/2.jpg, ...'
      : 'the images of each class go in its folder (any depth below it)',
  );
}
