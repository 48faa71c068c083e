// Rewrites the paths that name this project's files, for files about to be moved: given a map
// of old -> new repository paths (a file, or a folder ending in /), every relative module
// specifier in src/, test/, scripts/, examples/, lib/ and bin/ is pointed at where its target
// will stand, seen from where its own file will stand:
//   from '…'   import '…'   import('…')   new URL('…', import.meta.url)
// and so are the paths given otherwise: projectFile('coordinator/…') (relative to src/), and
// src/… or types/… paths written out in code or comments. It only rewrites the files in place;
// the moves themselves are the caller's (scripts/regroup-coordinator.sh runs it before git mv).
//
//   node --import tsx scripts/rewrite-import-paths.ts MAP_FILE   (one "old new" pair a line)
import fs from 'node:fs';
import path from 'node:path';

const ROOTS = ['src', 'test', 'scripts', 'examples', 'lib', 'bin'];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

type Move = { from: string; to: string };

function readMap(file: string): Move[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l, i) => {
      const [from, to, extra] = l.split(/\s+/);
      if (!from || !to || extra !== undefined || from.endsWith('/') !== to.endsWith('/'))
        throw new Error(`${file}: pair ${i + 1} ("${l}") is not "old new" (both files, or both folders ending in /)`);
      return { from, to };
    });
}

/** Where a repository path (a file or a folder, without a trailing /) will stand. */
function movedPath(moves: Move[], p: string): string {
  for (const m of moves) {
    if (p === m.from || p === m.from.replace(/\/$/, '')) return p === m.from ? m.to : m.to.replace(/\/$/, '');
    if (m.from.endsWith('/') && p.startsWith(m.from)) return m.to + p.slice(m.from.length);
  }
  return p;
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(p);
    return SOURCE.test(e.name) ? [p] : [];
  });
}

const relativeSpec = (fromDir: string, target: string) => {
  const r = path.posix.relative(fromDir, target) || '.';
  return r.startsWith('.') ? r : `./${r}`;
};

/** The specifier `spec` of `file` (both as they stand now), as the moved file must write it. */
function rewriteSpec(moves: Move[], file: string, spec: string): string {
  if (!spec.startsWith('./') && !spec.startsWith('../') && spec !== '.' && spec !== '..') return spec;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  if (!fs.existsSync(target)) return spec; // not a file of this tree (a template, a generated path): left as it is
  const out = relativeSpec(path.posix.dirname(movedPath(moves, file)), movedPath(moves, target));
  return spec.endsWith('/') && !out.endsWith('/') ? `${out}/` : out;
}

const SPECIFIERS = [
  /(\bfrom\s+)(['"])([^'"\n]+)\2/g,
  /(\bimport\s+)(['"])([^'"\n]+)\2/g,
  /(\bimport\(\s*)(['"])([^'"\n]+)\2/g,
  /(\bnew URL\(\s*)(['"])([^'"\n]+)\2(?=\s*,\s*import\.meta\.url)/g,
];

/** src/… and types/… paths written out (not the tail of a relative path), and projectFile's paths relative to src/. */
function rewriteRepoPaths(moves: Move[], text: string): string {
  const written = text.replace(/(?<![\w./@-])(src|types)\/([\w./-]*[\w/])/g, (whole, root: string, rest: string) => {
    const dts = root === 'types' && rest.endsWith('.d.ts');
    const asSource = `src/${dts ? rest.replace(/\.d\.ts$/, '.ts') : rest}`;
    const moved = movedPath(moves, asSource);
    if (moved === asSource) return whole;
    return dts ? `types/${moved.slice('src/'.length).replace(/\.ts$/, '.d.ts')}` : moved;
  });
  return written.replace(/(\bprojectFile\(\s*)(['"])([^'"\n]+)\2/g, (whole, head: string, q: string, rel: string) => {
    const moved = movedPath(moves, `src/${rel}.ts`);
    return moved === `src/${rel}.ts` ? whole : `${head}${q}${moved.slice('src/'.length, -'.ts'.length)}${q}`;
  });
}

function main(): void {
  const mapFile = process.argv[2];
  if (!mapFile) throw new Error('usage: rewrite-import-paths.ts MAP_FILE');
  const moves = readMap(mapFile);
  let changed = 0;
  for (const file of ROOTS.flatMap(sourceFiles)) {
    const before = fs.readFileSync(file, 'utf8');
    let after = before;
    for (const re of SPECIFIERS) after = after.replace(re, (_, head: string, q: string, spec: string) => `${head}${q}${rewriteSpec(moves, file, spec)}${q}`);
    after = rewriteRepoPaths(moves, after);
    if (after !== before) {
      fs.writeFileSync(file, after);
      changed++;
    }
  }
  console.log(`rewrote the paths in ${changed} files`);
}

main();
