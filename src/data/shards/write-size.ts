// --shard-size's text as bytes: a number and a unit, B, KB, MB, GB, TB (powers of 1000, as
// WebDataset's maxsize and object stores count) or KiB, MiB, GiB, TiB (powers of 1024), any
// case, a space allowed between; a bare number is bytes. `256MB` is 256,000,000 bytes.
import { MgpuError } from '../../shared/errors.ts';

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

export function parseShardSize(text: string, flag = '--shard-size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[(m?.[2] || 'b').toLowerCase()];
  const bytes = m && unit !== undefined ? Math.round(Number(m[1]) * unit) : NaN;
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes))
    throw new MgpuError('E_USAGE', `${flag} ${JSON.stringify(text)} is not a size`, {
      hint: `a number and a unit: ${flag} 256MB (MB = 1,000,000 bytes; MiB = 1,048,576), 1GB, 64MiB, or bytes: 1000000`,
    });
  return bytes;
}

/** A whole number of samples for --shard-samples, at least 1. */
export function parseShardSamples(text: string): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1) || !Number.isSafeInteger(n))
    throw new MgpuError('E_USAGE', `--shard-samples ${JSON.stringify(text)} is not a whole number of samples`, { hint: 'e.g. --shard-samples 1000' });
  return n;
}
