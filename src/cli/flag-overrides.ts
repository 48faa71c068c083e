// Command-line flags that are shorthands for config keys, turned into --set overrides so that
// they are validated (and reported by key path) like everything else.
import path from 'node:path';
import { MgpuError } from '../shared/errors.ts';

export function flagOverrides(argv: { gpus?: string; simulate?: string; oversubscribe?: boolean; backend?: string; runDir?: string }): string[] {
  const sets: string[] = [];
  if (argv.gpus !== undefined) {
    const g = argv.gpus.trim();
    if (g === 'all') sets.push('devices.gpus=all');
    else if (/^\d+(\s*,\s*\d+)*$/.test(g)) sets.push(`devices.gpus=[${g}]`);
    else throw new MgpuError('E_USAGE', `--gpus ${argv.gpus}: expected "all" or a comma-separated list of GPU ids like 0,1`);
  }
  if (argv.simulate !== undefined) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- yargs gives an array when the flag is repeated
    const n = String(argv.simulate).trim();
    if (n === '')
      throw new MgpuError('E_USAGE', '--simulate needs the number of simulated GPUs', {
        hint: 'e.g. --simulate 2; without --simulate, every visible GPU is used',
      });
    if (!/^\d+$/.test(n) || Number(n) < 1 || !Number.isSafeInteger(Number(n))) {
      throw new MgpuError('E_USAGE', `--simulate ${JSON.stringify(argv.simulate)}: expected a positive integer (the number of simulated GPUs)`, {
        hint: 'e.g. --simulate 2',
      });
    }
    sets.push(`devices.simulate=${Number(n)}`);
  }
  if (argv.oversubscribe) sets.push('devices.oversubscribe=true');
  if (argv.backend !== undefined) sets.push(`devices.backend=${argv.backend}`);
  if (argv.runDir !== undefined) sets.push(`runDir=${JSON.stringify(path.resolve(argv.runDir))}`);
  return sets;
}
