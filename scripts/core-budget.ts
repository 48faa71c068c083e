// The core engine's line budget (docs/design.md, "The core engine's line budget"): the files
// that make one training step happen, and the most lines each one and all of them together may
// have. `npm run check:core-budget` (scripts/check-core-budget.ts, run by .ci/run) checks it.
import fs from 'node:fs';
import path from 'node:path';

/** The core files, relative to the repository root; `*` matches within one file name. */
export const CORE_FILES = [
  'src/coordinator/train*.ts', // the train loop (train.ts and the train-*.ts it is split into)
  'src/coordinator/engine/session.ts',
  'src/coordinator/engine/worker-group.ts',
  'src/coordinator/run/recovery.ts',
  'src/coordinator/engine/reduce/*.ts',
  'src/worker/main.ts',
  'src/shared/protocol.ts',
  'src/shared/slab.ts',
  'src/shared/layout.ts',
  'src/shared/channel.ts',
  'src/data/batch-plan.ts',
  'src/shared/shard.ts',
];

export interface Budget {
  total: number; // lines of all core files together
  perFile: number; // lines of any one core file
}

/** 3,341 lines on 2026-12-01 after the train.ts split, the largest file 438 (docs/design.md says why so little headroom). */
export const CORE_BUDGET: Budget = { total: 3450, perFile: 450 };

export interface BudgetReport {
  files: { file: string; lines: number }[];
  total: number;
  problems: string[]; // empty when every file and the total are within the budget
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function countLines(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text.length > 0 && !text.endsWith('\n') ? newlines + 1 : newlines;
}

/** The files `pattern` names under `root`, sorted; a `*` may appear in the file name only. */
export function expand(root: string, pattern: string): string[] {
  const dir = path.posix.dirname(pattern);
  const name = path.posix.basename(pattern);
  if (!name.includes('*')) return fs.existsSync(path.join(root, pattern)) ? [pattern] : [];
  const re = new RegExp(`^${name.split('*').map(escapeRegExp).join('[^/]*')}$`);
  const entries = fs.existsSync(path.join(root, dir)) ? fs.readdirSync(path.join(root, dir), { withFileTypes: true }) : [];
  return entries
    .filter((e) => e.isFile() && re.test(e.name))
    .map((e) => `${dir}/${e.name}`)
    .sort();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Counts the core files under `root` against `budget`; a pattern matching no file is a problem too. */
export function checkCoreBudget(root: string, patterns: readonly string[], budget: Budget): BudgetReport {
  const problems: string[] = [];
  const files: BudgetReport['files'] = [];
  for (const pattern of patterns) {
    const found = expand(root, pattern);
    if (found.length === 0) problems.push(`${pattern} matches no file: update the core list in scripts/core-budget.ts and docs/design.md`);
    for (const file of found) {
      if (files.some((f) => f.file === file)) continue;
      files.push({ file, lines: countLines(fs.readFileSync(path.join(root, file), 'utf8')) });
    }
  }
  for (const f of files) {
    if (f.lines > budget.perFile) problems.push(`${f.file} has ${f.lines} lines, over the budget of ${budget.perFile} per core file`);
  }
  const total = files.reduce((s, f) => s + f.lines, 0);
  if (total > budget.total) problems.push(`the core files have ${total} lines in all, over the budget of ${budget.total}`);
  return { files, total, problems };
}

/** The table the check prints: each file's lines, then the total, against the budget. */
export function formatReport(report: BudgetReport, budget: Budget): string {
  const width = Math.max(5, ...report.files.map((f) => f.file.length));
  const row = (name: string, lines: number, of: number) => `${name.padEnd(width)}  ${String(lines).padStart(5)} / ${of}`;
  return [
    `${'file'.padEnd(width)}  lines / budget`,
    ...report.files.map((f) => row(f.file, f.lines, budget.perFile)),
    row('total', report.total, budget.total),
  ].join('\n');
}
