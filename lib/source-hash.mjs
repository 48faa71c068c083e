// The project runs from its TypeScript sources (src/, through tsx's loader) or, when `npm run
// build` has compiled them and they have not changed since, from the JavaScript in dist/ (the same
// code, without a loader: each process and thread starts about a second of CPU sooner). Which one
// is decided here, by content: dist/ is used only while its stamp (dist/.source-hash, written by
// the build) is the hash of src/ as it is now, so an edit to a source file is never run stale.
// The same hash tells the machines of a multi-machine run that they run the same mgpu-train.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

/** The package's root folder (lib/..). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The compiled JavaScript's folder, and its stamp. */
export const DIST = path.join(ROOT, 'dist');
export const DIST_STAMP = path.join(DIST, '.source-hash');

/** @type {string | null} */
let hashed = null;
/** A hash of every .ts and .js file under src/ (names and contents, in a fixed order). */
export function sourceHash() {
  if (hashed) return hashed;
  const src = path.join(ROOT, 'src');
  const h = createHash('sha256');
  /** @param {string} dir */
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|js)$/.test(e.name)) h.update(path.relative(src, p)).update('\0').update(fs.readFileSync(p));
    }
  };
  walk(src);
  return (hashed = h.digest('hex'));
}

/** @type {boolean | null} */
let fresh = null;
/** Whether dist/ holds the compiled src/ as it is now (MGPU_FROM_SOURCE=1: never). */
export function distIsFresh() {
  if (fresh !== null) return fresh;
  if (process.env.MGPU_FROM_SOURCE === '1') return (fresh = false);
  let stamp;
  try {
    stamp = fs.readFileSync(DIST_STAMP, 'utf8').trim();
  } catch {
    return (fresh = false);
  }
  return (fresh = stamp === sourceHash());
}

/**
 * Imports the project module `relativeToSrc` (e.g. 'cli/main'): from dist/ when it is fresh,
 * else from src/ with tsx's loader registered first (both of its hooks: in a "type": "commonjs"
 * project a user's .ts module is CommonJS to Node, and without the CommonJS hook its import
 * fails with "Cannot require() ES Module ... in a cycle").
 */
/** @param {string} relativeToSrc */
export async function importProjectModule(relativeToSrc) {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- a module namespace (typed in source-hash.d.mts)
  if (distIsFresh()) return import(new URL(`../dist/${relativeToSrc}.js`, import.meta.url).href);
  await registerTypeScript(true);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- as above
  return import(new URL(`../src/${relativeToSrc}.ts`, import.meta.url).href);
}

/** @type {Promise<void> | null} */
let registered = null;

/**
 * Registers tsx's loader in this process or thread, once: its CommonJS hook, and with `esm` its
 * ESM hook too (a worker thread of a run from the sources has the CommonJS one alone).
 * @param {boolean} esm
 */
export function registerTypeScript(esm) {
  registered ??= (async () => {
    (await import('tsx/cjs/api')).register();
    if (esm) (await import('tsx/esm/api')).register();
  })();
  return registered;
}
