// Finds and loads one of the project's own N-API addons (native/, built by `npm install` through
// node-gyp). Returns the module, or why it is not there, so the caller can fall back to
// JavaScript and say so once.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../', import.meta.url);

/** Where the build puts `name`.node, relative to the project root (`dir`: its native/ folder). */
export const addonFiles = (name: string, dir = 'native'): string[] => [`${dir}/build/Release/${name}.node`, `${dir}/build/Debug/${name}.node`];

export type AddonLoad<T> = { addon: T; reason: null } | { addon: null; reason: string };

/**
 * Loads native/build/{Release,Debug}/`name`.node and checks it has every function in
 * `functions` (an older build of the project may lack one).
 */
export function loadAddon<T>(name: string, what: string, functions: readonly string[], dir = 'native'): AddonLoad<T> {
  const files = addonFiles(name, dir);
  const file = files.map((f) => fileURLToPath(new URL(f, ROOT))).find((f) => fs.existsSync(f));
  if (!file) {
    return {
      addon: null,
      reason: `the ${what} addon is not built (no ${files[0]}; build it with \`npm run build:native\`, which needs a C compiler, make and python3)`,
    };
  }
  let mod: Record<string, unknown>;
  try {
    mod = createRequire(import.meta.url)(file) as Record<string, unknown>;
  } catch (err) {
    return {
      addon: null,
      reason: `the ${what} addon ${file} does not load: ${(err as Error).message.split('\n')[0]} (rebuild it with \`npm run build:native\`)`,
    };
  }
  if (!functions.every((f) => typeof mod[f] === 'function')) {
    return { addon: null, reason: `the ${what} addon ${file} is from another version of the project (rebuild it with \`npm run build:native\`)` };
  }
  return { addon: mod as T, reason: null };
}
