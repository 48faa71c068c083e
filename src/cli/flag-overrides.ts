// Command-line flags that are shorthands for config keys, turned into --set overrides so that
// they are validated (and reported by key path) like everything else.
import path from 'node:path';
import { MgpuError } from '../shared/errors.ts';

export function flagOverrides(argv: { gpus?: string; simulate?: number; oversubscribe?: boolean; backend?: string; runDir?: string }): string[] {
  const sets: string[] = [];
  if (argv.gpus !== undefined) {
    const g = argv.gpus.trim();
    if (g === 'all') sets.push('devices.gpus=all');
    else if (/^\d+(\s*,\s*\d+)*$/.test(g)) sets.push(`devices.gpus=[${g}]`);
    else throw new MgpuError('E_USAGE', `--gpus ${argv.gpus}: expected "all" or a comma-separated list of GPU ids like 0,1`);
  }
  if (argv.simulate !== undefined) {
    if (!Number.isInteger(argv.simulate) || argv.simulate < 1) throw new MgpuError('E_USAGE', `--simulate ${argv.simulate}: expected a positive integer`);
    sets.push(`devices.simulate=${argv.simulate}`);
  }
  if (argv.oversubscribe) sets.push('devices.oversubscribe=true');
  if (argv.backend !== undefined) sets.push(`devices.backend=${argv.backend}`);
  if (argv.runDir !== undefined) sets.push(`runDir=${JSON.stringify(path.resolve(argv.runDir))}`);
  return sets;
}
