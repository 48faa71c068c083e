// File name patterns in a config (`features: ./x-*.npy`): `*` matches any run of characters and
// `?` one, in the last part of the path only (the folder is named as it is), as a shell would;
// the matches come sorted by code point, the order their rows are joined in. Hidden files match
// only a pattern that starts with a dot.
import fs from 'node:fs';
import path from 'node:path';
import { DataError } from './errors.ts';

export const isPattern = (file: string): boolean => /[*?]/.test(file);

/** The files `pattern` matches, sorted; none is an error naming the folder. `where` names the config key. */
export function matchFiles(pattern: string, where: string): string[] {
  const dir = path.dirname(pattern);
  if (/[*?]/.test(dir))
    throw new DataError(`${where}: ${pattern} has a wildcard in its folder; only the file name may have * or ?`, 'put the files in one folder');
  const base = path.basename(pattern);
  const re = new RegExp(
    `^${base
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DataError(
      `${where}: cannot list the folder ${dir} of ${pattern} (${code === 'ENOENT' ? 'no such folder' : (code ?? String(err))})`,
      "check the path; relative paths in a config are resolved against the config file's directory",
    );
  }
  const matched = names
    .filter((n) => re.test(n) && (base.startsWith('.') || !n.startsWith('.')))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((n) => path.join(dir, n))
    .filter((f) => fs.statSync(f).isFile());
  if (matched.length === 0) throw new DataError(`${where}: no file in ${dir} matches ${base}`, 'check the pattern: * matches any run of characters, ? one');
  return matched;
}
