// What a saved model or checkpoint directory holds is checked before it is used: checksums.json,
// written beside the files, records each file's size in bytes and its CRC-32C (as TensorFlow's
// checkpoints carry one), and every load compares them. A directory without checksums.json (a
// model saved by plain tfjs, a checkpoint older than the checksums) gets the size checks alone:
// the weight files against model.json's weightsManifest (here), the slot files against the
// model's parameter count (coordinator/checkpoint.ts). tf.loadLayersModel ignores the extra file.
import fs from 'node:fs';
import path from 'node:path';
import { crc32c } from './crc32c.ts';
import { MgpuError } from './errors.ts';

export const CHECKSUM_FILE = 'checksums.json';
const FORMAT = 'mgpu-train-checksums';

export interface FileSum {
  bytes: number;
  crc32c: string; // 8 hex digits
}

const hex = (n: number) => n.toString(16).padStart(8, '0');

/** A damaged model or checkpoint file: the directory, the file and what is wrong with it. */
export class DamagedFileError extends MgpuError {
  constructor(
    readonly dir: string,
    readonly file: string,
    readonly problem: string,
    hint?: string,
  ) {
    super('E_CHECKPOINT', `${dir} is damaged: ${file} ${problem}${file.includes(' + ') ? '' : ` (${path.join(dir, file)})`}`, { hint });
  }
}

/** checksums.json's text for these files (name → contents). */
export function checksumsJson(files: Record<string, Uint8Array>): string {
  const sums = Object.fromEntries(Object.entries(files).map(([name, data]) => [name, { bytes: data.byteLength, crc32c: hex(crc32c(data)) }]));
  return JSON.stringify({ format: FORMAT, version: 1, files: sums }, null, 1);
}

/** The sums recorded in `dir`, or null when it has no checksums.json. */
export function readChecksums(dir: string): Record<string, FileSum> | null {
  const file = path.join(dir, CHECKSUM_FILE);
  if (!fs.existsSync(file)) return null;
  let parsed: { format?: unknown; files?: unknown } | null;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof parsed;
  } catch (err) {
    throw new DamagedFileError(dir, CHECKSUM_FILE, `cannot be read: ${(err as Error).message}`);
  }
  const files = parsed?.files;
  const ok =
    parsed?.format === FORMAT &&
    typeof files === 'object' &&
    files !== null &&
    Object.values(files as Record<string, Partial<FileSum> | null>).every(
      (s) => Number.isSafeInteger(s?.bytes) && typeof s?.crc32c === 'string' && /^[0-9a-f]{8}$/.test(s.crc32c),
    );
  if (!ok) throw new DamagedFileError(dir, CHECKSUM_FILE, `is not an ${FORMAT} file (format, and bytes and crc32c for each file)`);
  return files as Record<string, FileSum>;
}

/** What is wrong with `dir/name` against its recorded sum, or null when it matches. */
function mismatch(dir: string, name: string, sum: FileSum): string | null {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) return `is missing (${CHECKSUM_FILE} lists it, ${sum.bytes} bytes)`;
  const data = fs.readFileSync(file);
  if (data.byteLength !== sum.bytes) return `is ${data.byteLength} bytes, ${CHECKSUM_FILE} records ${sum.bytes}`;
  const crc = hex(crc32c(data));
  if (crc !== sum.crc32c) return `has CRC-32C ${crc}, ${CHECKSUM_FILE} records ${sum.crc32c}: its contents changed after it was written`;
  return null;
}

/**
 * Checks the files of `dir` that checksums.json lists (those of `only`, when given) and throws a
 * DamagedFileError for the first that is missing, of another size or fails its CRC-32C. Returns
 * whether `dir` has checksums at all.
 */
export function verifyChecksums(dir: string, only?: readonly string[], hint?: string): boolean {
  const sums = readChecksums(dir);
  if (!sums) return false;
  for (const [name, sum] of Object.entries(sums)) {
    if (only && !only.includes(name)) continue;
    const wrong = mismatch(dir, name, sum);
    if (wrong) throw new DamagedFileError(dir, name, wrong, hint);
  }
  return true;
}

/** Bytes per element of a weightsManifest entry (its quantized dtype when quantized), or null when variable (strings). */
export function bytesPerValue(spec: { dtype: string; quantization?: { dtype?: string } }): number | null {
  const q = spec.quantization?.dtype;
  const sizes: Record<string, number> = { float32: 4, int32: 4, bool: 1, complex64: 8, uint8: 1, uint16: 2, float16: 2 };
  return (q ? sizes[q] : sizes[spec.dtype]) ?? null;
}
