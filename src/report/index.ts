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

export async function report(
  runDir: string,
  out: { line(text: string): void },
  opts: { refreshSeconds?: number; quiet?: boolean } = {},
): Promise<{ htmlPath: string; finished: boolean }> {
  const run = await readRun(runDir);
  const summary = summarize(run);
  if (!opts.quiet) for (const l of summaryText(summary)) out.line(l);
  const htmlPath = path.join(runDir, 'report.html');
  const tmp = `${htmlPath}.tmp-${process.pid}`;
  await fs.writeFile(tmp, renderHtml(run, summary, { refreshSeconds: opts.refreshSeconds }));
  await fs.rename(tmp, htmlPath);
  if (!opts.quiet) {
    out.line('');
    out.line(`report written to ${htmlPath}`);
  }
  return { htmlPath: path.resolve(htmlPath), finished: summary.finalModel !== null };
}

/**
 * `report --watch`: writes the page now, then again whenever metrics.jsonl changes (checked every
 * `everyMs`), each page reloading itself in the browser, until the run has its final model or
 * `signal` is aborted (Ctrl-C). The last page written does not reload.
 */
export async function watchReport(
  runDir: string,
  out: { line(text: string): void },
  signal: AbortSignal,
  everyMs = 1000,
): Promise<{ htmlPath: string; renders: number }> {
  const metrics = path.join(runDir, 'metrics.jsonl');
  const stamp = async () => (await fs.stat(metrics).catch(() => null))?.mtimeMs ?? 0;
  const refreshSeconds = Math.max(1, Math.round((2 * everyMs) / 1000));
  let seen = await stamp();
  let r = await report(runDir, out, { refreshSeconds });
  let renders = 1;
  out.line(`watching ${metrics}: the page is rewritten as lines arrive and reloads itself (Ctrl-C to stop)`);
  while (!r.finished && !signal.aborted) {
    await new Promise((resolve) => {
      const t = setTimeout(resolve, everyMs);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve(null);
        },
        { once: true },
      );
    });
    const now = await stamp();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during the awaits above
    if (now === seen || signal.aborted) continue;
    seen = now;
    r = await report(runDir, out, { refreshSeconds, quiet: true });
    renders++;
  }
  // The last page does not reload itself.
  r = await report(runDir, out, { quiet: true });
  out.line(r.finished ? `the run has finished: ${r.htmlPath}` : `stopped watching: ${r.htmlPath}`);
  return { htmlPath: r.htmlPath, renders: renders + 1 };
}
