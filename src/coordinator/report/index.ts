// `mgpu-train report <run dir>`: a summary table on the terminal and runs/<name>/report.html, a
// self-contained page of charts (loss, eval accuracy, learning rate, throughput, gradient norm,
// where a step's time goes) that opens offline.
import fs from 'node:fs/promises';
import path from 'node:path';
import { renderHtml } from './html.ts';
import { readRun } from './read-run.ts';
import { summarize, summaryText } from './summary.ts';

export { readRun } from './read-run.ts';
export { summarize, summaryText } from './summary.ts';
export { renderHtml } from './html.ts';

export async function report(runDir: string, out: { line(text: string): void }): Promise<{ htmlPath: string }> {
  const run = await readRun(runDir);
  const summary = summarize(run);
  for (const l of summaryText(summary)) out.line(l);
  const htmlPath = path.join(runDir, 'report.html');
  const tmp = `${htmlPath}.tmp-${process.pid}`;
  await fs.writeFile(tmp, renderHtml(run, summary));
  await fs.rename(tmp, htmlPath);
  out.line('');
  out.line(`report written to ${htmlPath}`);
  return { htmlPath: path.resolve(htmlPath) };
}
