// Prints rows of figures as an aligned text table, and saves them as JSON beside the scripts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  const cols = Object.keys(rows[0] ?? {});
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 3 : 1)) : v);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]!).length)));
  console.log(`\n${title}`);
  console.log(cols.map((c, i) => c.padStart(width[i]!)).join('  '));
  console.log(width.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(cols.map((c, i) => cell(r[c]!).padStart(width[i]!)).join('  '));
}

export function saveJson(name: string, data: unknown): string {
  const dir = path.resolve('bench-results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
  fs.writeFileSync(file, JSON.stringify({ machine, date: new Date().toISOString(), data }, null, 1));
  return file;
}
