// What a mutation run (scripts/mutation.ts) mutates and which tests judge it: the TypeScript
// files of the folders and files named (under src/), and the unit tests that import one of those
// files directly (an `import ... from`, `import '...'` or `import('...')` whose relative path
// resolves to it). Direct imports only, so the tests run are those written for that code: a test
// that reaches it through a helper or another module is not picked (name it with --test).
import fs from 'node:fs';
import path from 'node:path';

/** Every .ts file under `root` (a file: itself), as a path relative to `cwd` with forward slashes. */
export function sourceFiles(cwd: string, target: string): string[] {
  const abs = path.resolve(cwd, target);
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  if (!stat) throw new Error(`mutation: ${target} does not exist (give a folder or a .ts file under src/)`);
  if (stat.isFile()) {
    if (!abs.endsWith('.ts')) throw new Error(`mutation: ${target} is not a .ts file`);
    return [relative(cwd, abs)];
  }
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(relative(cwd, p));
    }
  };
  walk(abs);
  if (out.length === 0) throw new Error(`mutation: ${target} holds no .ts file`);
  return out;
}

/** The relative module specifiers a TypeScript file imports (static, side-effect, dynamic and `export ... from`). */
export function importedSpecifiers(text: string): string[] {
  const found = new Set<string>();
  const patterns = [/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of text.matchAll(re)) found.add(m[1]!);
  return [...found];
}

/** The test files among `candidates` (relative to `cwd`) that import one of `sources` directly. */
export function testsImporting(cwd: string, candidates: string[], sources: string[]): string[] {
  const wanted = new Set(sources.map((s) => path.resolve(cwd, s)));
  return candidates.filter((test) => {
    const abs = path.resolve(cwd, test);
    return importedSpecifiers(fs.readFileSync(abs, 'utf8')).some((spec) => wanted.has(path.resolve(path.dirname(abs), spec)));
  });
}

/** The unit test files of the project (test/unit/*.test.ts), relative to `cwd`. */
export function unitTests(cwd: string): string[] {
  const dir = path.join(cwd, 'test', 'unit');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => relative(cwd, path.join(dir, f)));
}

/** A short name for a run's targets: the folder or file, its slashes as dashes ("src/data/shards" -> "data-shards"). */
export function runName(targets: string[]): string {
  const one = (t: string) =>
    t
      .replace(/\\/g, '/')
      .replace(/^(\.\/)?src\//, '')
      .replace(/\.ts$/, '')
      .replace(/\/+$/, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-');
  return targets.map(one).join('+');
}

/**
 * The symbolic links to folders under `cwd` (outside node_modules, .git and `skip`): Stryker's
 * sandbox copy cannot copy them (a worktree that shares another's native/build has them), so
 * they are left out of it.
 */
export function symlinkedFolders(cwd: string, skip: string[] = []): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = relative(cwd, p);
      if (e.name === 'node_modules' || e.name === '.git' || skip.includes(rel)) continue;
      if (e.isSymbolicLink() && fs.statSync(p, { throwIfNoEntry: false })?.isDirectory()) out.push(rel);
      else if (e.isDirectory()) walk(p);
    }
  };
  walk(cwd);
  return out.sort();
}

const relative = (cwd: string, abs: string) => path.relative(cwd, abs).split(path.sep).join('/');
