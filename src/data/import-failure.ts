// Why a user's data module failed to import, as one message and a hint that works wherever the
// module sits. tsx compiles a .ts (or .js) module with esbuild, and tsx drops esbuild's errors
// array from the error it throws: its message keeps each error as `file:line:column: ERROR: text`
// under "Transform failed with N errors:", read back here. Node's own SyntaxError of an ES module
// says no file or line: `node --check` says them. A top-level await in a module that Node loads
// as CommonJS (a .ts file with no package.json of "type": "module" above it) is told the two ways
// that load it as an ES module.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { messageOf } from '../shared/errors.ts';

/** One error of the compile: where, and what esbuild says. */
export interface CompileError {
  file: string;
  line: number;
  column: number;
  text: string;
}

const TRANSFORM_FAILED = /^Transform failed with \d+ errors?:/;
const ESBUILD_LINE = /^(.+?):(\d+):(\d+): ERROR: (.*)$/;
const CJS_AWAIT = /Top-level await is currently not supported with the "cjs" output format/;

/** esbuild's errors, read back from tsx's "Transform failed" message; [] for any other error. */
export function compileErrors(message: string): CompileError[] {
  if (!TRANSFORM_FAILED.test(message)) return [];
  return message.split('\n').flatMap((l) => {
    const m = ESBUILD_LINE.exec(l);
    return m ? [{ file: m[1]!, line: Number(m[2]), column: Number(m[3]), text: m[4]! }] : [];
  });
}

/** `node --check` on a file Node refused as a SyntaxError: its `file:line`, or null. */
function syntaxErrorLine(file: string): string | null {
  const r = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  const first = /^(.+:\d+)$/m.exec(r.stderr);
  return r.status !== 0 && first ? first[1]! : null;
}

/** The first frame of a stack in `file`: where a module threw while it loaded. */
function frameIn(stack: string | undefined, file: string): string | null {
  for (const l of stack?.split('\n') ?? []) {
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?$/.exec(l.trim());
    if (m && m[1]!.replace(/^file:\/\//, '') === file) return `${file}:${m[2]}:${m[3]}`;
  }
  return null;
}

/** What the import error of `file` (the module of config key `keyPath`) says, and the hint for it. */
export function importFailure(err: unknown, file: string, keyPath: string): { reason: string; hint: string } {
  const message = messageOf(err);
  const errors = compileErrors(message);
  if (errors.length > 0) {
    const reason = errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.text}`).join('; ');
    if (errors.some((e) => CJS_AWAIT.test(e.text))) return { reason, hint: esmHint(file, keyPath) };
    return { reason, hint: 'fix the module at the line and column the message names' };
  }
  if (err instanceof SyntaxError) {
    const at = syntaxErrorLine(file);
    return { reason: at ? `${at}: ${message}` : message, hint: 'fix the module at the line the message names' };
  }
  const at = frameIn((err as { stack?: string } | null)?.stack, file);
  return {
    reason: message,
    hint: at ? `the module threw this while it loaded, at ${at}` : 'the module, or a file it imports, failed as Node imported it: see the message',
  };
}

/** A top-level await needs an ES module: the two ways to make a .ts (or .js) file one. */
function esmHint(file: string, keyPath: string): string {
  const ext = path.extname(file);
  const mext = ext === '.js' ? '.mjs' : '.mts';
  const renamed = path.basename(file, ext) + mext;
  return (
    `Node loads ${path.basename(file)} as CommonJS (no package.json with "type": "module" in its folder or above), and CommonJS has no top-level await: ` +
    `put a package.json holding {"type": "module"} in ${path.dirname(file)}, or rename the file to ${renamed} (and ${keyPath}.module with it)`
  );
}
