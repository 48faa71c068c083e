// The image decoder, sharp (libvips with libjpeg-turbo/mozjpeg, libpng, libwebp), an optional
// dependency: where its binary is missing, a `type: images` source is refused with what to
// install, and every other source still works. Loaded by require, never by a static import.
import { createRequire } from 'node:module';
import { ConfigError } from '../../shared/errors.ts';

export type Sharp = typeof import('sharp').default;

let loaded: Sharp | Error | null = null;

/** sharp, or the error of loading it. */
export function trySharp(): Sharp | Error {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('sharp') as Sharp;
  } catch (err) {
    loaded = err instanceof Error ? err : new Error(String(err));
  }
  return loaded;
}

/** sharp, or a ConfigError at `keyPath`.type (exit 2) saying what to install. */
export function requireSharp(keyPath: string): Sharp {
  const s = trySharp();
  if (!(s instanceof Error)) return s;
  const first = s.message.split('\n')[0]!;
  throw new ConfigError(
    `${keyPath}.type`,
    `'images' decodes with sharp, which cannot be loaded here (${first})`,
    'install it beside mgpu-train: npm install sharp (its npm packages ship prebuilt libvips for linux, macOS and Windows on x64 and arm64; nothing is compiled)',
  );
}

/** The file extensions (lower case, with the dot) of the formats this sharp reads from files. */
export function imageExtensions(sharp: Sharp): string[] {
  const reads = (f: string) => (sharp.format as unknown as Record<string, { input?: { file?: boolean } } | undefined>)[f]?.input?.file === true;
  const table: Array<[string, string[]]> = [
    ['jpeg', ['.jpg', '.jpeg']],
    ['png', ['.png']],
    ['webp', ['.webp']],
    ['gif', ['.gif']],
    ['tiff', ['.tif', '.tiff']],
    ['heif', ['.avif']],
  ];
  return table.filter(([f]) => reads(f)).flatMap(([, exts]) => exts);
}
