// Imports a user's module (model, data, metric, loss, custom layers) as Node would. One written
// in TypeScript needs tsx's loader: a process that runs from the project's sources has it, one
// that runs from the compiled JavaScript (dist/) registers it before its first such module and
// imports it through this file's own source, so that it loads as it does from the sources (tsx
// takes a .ts module outside any package for CommonJS when a plain .js module imports it, and
// for the ES module it is when a .ts module of this "type": "module" package does). In a
// worker thread (data.threads) tsx's ESM hooks do not reach import() on Node 20, though its
// CommonJS hook does: a .ts module that import() cannot read is required through it instead, as
// Node's import() would see it (a CommonJS module's exports are its default export).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { registerTypeScript } from '../../lib/source-hash.mjs';
import { fromSource, isTypeScript } from './runtime.ts';

export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  if (isTypeScript(file) && !fromSource) {
    // tsx's loader, as bin/mgpu-train.mjs registers it; in a worker thread its CommonJS hook alone,
    // as a thread of a run from the sources has it (so a module loads the same way in either).
    await registerTypeScript(isMainThread);
    if (isMainThread) {
      // The path climbs out of dist/shared into src/shared: from the sources it names this very file.
      const source = (await import(new URL('../../src/shared/import-user-module.ts', import.meta.url).href)) as { importUserModule: typeof importUserModule };
      return source.importUserModule(file);
    }
  }
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    if (isMainThread || (err as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    const mod = createRequire(import.meta.url)(file) as Record<string, unknown>;
    return mod.__esModule ? mod : { ...mod, default: mod };
  }
}
