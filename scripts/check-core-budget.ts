// Checks the core engine's line budget (scripts/core-budget.ts): prints each core file's lines
// and the total against the budget, and exits 1 naming every file or total over it.
//
//   node --import tsx scripts/check-core-budget.ts [--root dir] [--total N] [--per-file N]
//
// --root, --total and --per-file are for testing the check itself; CI runs it without them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CORE_BUDGET, CORE_FILES, checkCoreBudget, formatReport } from './core-budget.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: path.dirname(path.dirname(fileURLToPath(import.meta.url))) },
    total: { type: 'string' },
    'per-file': { type: 'string' },
  },
});
function lines(flag: string, given: string | undefined, fallback: number): number {
  if (given === undefined) return fallback;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`core budget: --${flag} must be a whole number of lines, got '${given}'`);
    process.exit(2);
  }
  return n;
}
const budget = { total: lines('total', values.total, CORE_BUDGET.total), perFile: lines('per-file', values['per-file'], CORE_BUDGET.perFile) };
const report = checkCoreBudget(values.root, CORE_FILES, budget);
console.log(formatReport(report, budget));
if (report.problems.length > 0) {
  for (const p of report.problems) console.error(`core budget: ${p}`);
  console.error('core budget: the budget and why are in docs/design.md ("The core engine\'s line budget")');
  process.exitCode = 1;
}
