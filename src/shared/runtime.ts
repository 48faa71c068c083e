// How to start another process or thread of this project: from the compiled JavaScript in dist/
// while it is fresh (lib/source-hash.mjs: the build's stamp is the hash of src/ as it is now),
// whichever form this process runs in; else in this process's own form, and from the TypeScript
// sources a child needs tsx's loader too (resolved to a file URL, so it works whatever the
// current directory).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, distIsFresh } from '../../lib/source-hash.mjs';

/** Whether this process runs from the TypeScript sources (through tsx). */
export const fromSource = import.meta.url.endsWith('.ts');

/** Extra node flags for a child process or worker thread running a file of this project (as projectFile gives it). */
export function childExecArgv(): string[] {
  return fromSource && !distIsFresh() ? ['--import', import.meta.resolve('tsx')] : [];
}

/** Extra node flags for a child process or worker thread running `file`, whatever it is (a test's own .ts file needs tsx). */
export function execArgvFor(file: string): string[] {
  return isTypeScript(file) ? ['--import', import.meta.resolve('tsx')] : [];
}

/** Whether `file` is TypeScript (tsx's loader runs it): .ts, .mts, .cts, .tsx. */
export function isTypeScript(file: string): boolean {
  return /\.[cm]?tsx?$/.test(file);
}

/** The path of a project module given relative to src/, in the form (.ts, or .js in dist/) its child runs. */
export function projectFile(relativeToSrc: string): string {
  if (distIsFresh()) return path.join(DIST, `${relativeToSrc}.js`);
  return fileURLToPath(new URL(`../${relativeToSrc}${fromSource ? '.ts' : '.js'}`, import.meta.url));
}
