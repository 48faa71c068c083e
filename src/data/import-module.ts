// Imports a user's data module. In a worker thread (data.threads) tsx's ESM hooks do not reach
// import() on Node 20, though its CommonJS hook does (it is what loads this project's files
// there): a .ts module that import() cannot read is required through it instead, as Node's
// import() would see it (a CommonJS module's exports are its default export).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

export async function importModule(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    if (isMainThread || (err as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    const mod = createRequire(import.meta.url)(file) as Record<string, unknown>;
    return mod.__esModule ? mod : { ...mod, default: mod };
  }
}
