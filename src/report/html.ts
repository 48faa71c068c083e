// report.html: one self-contained page that fetches nothing (its Content-Security-Policy forbids
// it): inline CSS, the summary and phase tables as HTML, and the charts drawn in the browser by
// uPlot, whose script and stylesheet are inlined (uplot-assets.ts) with the charts' data as a JSON
// block and the script that draws them (page-script.ts). Without JavaScript the tables, the chart
// titles and their notes still read; a <noscript> says what is missing. It renders the same
// offline, from an archive, or attached to an issue.
import { buildCharts, COLORS, type Chart } from './charts.ts';
import { escapeHtml, fmtInt, fmtLoss, fmtMs, fmtPct } from './format.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import type { RunData } from './read-run.ts';
import { phaseRows, summaryRows, type Summary } from './summary.ts';
import { uplotAssets } from './uplot-assets.ts';

const CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f4f5f7;color:#1f2937;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Liberation Sans","DejaVu Sans",sans-serif}
main{max-width:1220px;margin:0 auto;padding:28px 20px 40px}
header{display:flex;align-items:baseline;justify-content:space-between;gap:16px;flex-wrap:wrap;margin-bottom:18px}
h1{font-size:26px;line-height:1.2;margin:0;font-weight:650;letter-spacing:-.01em}
h1 .kind{color:#6b7280;font-weight:500}
.sub{color:#6b7280;margin:4px 0 0}
.stamp{color:#9ca3af;font-size:12px}
h2{font-size:15px;margin:0 0 10px;font-weight:650;color:#111827}
h3{font-size:15px;margin:0;font-weight:650;color:#111827}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:16px 18px;box-shadow:0 1px 2px rgba(16,24,40,.04)}
.tiles{display:grid;grid-template-columns:repeat(4,1fr);gap:14px;margin-bottom:14px}
.tile .label{color:#6b7280;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.tile .value{font-size:24px;font-weight:650;margin-top:2px;font-variant-numeric:tabular-nums}
.tile .detail{color:#6b7280;font-size:12px}
.alerts{margin:0 0 14px;padding:10px 14px;border:1px solid #fcd34d;background:#fffbeb;border-radius:10px;color:#92400e}
.alerts ul{margin:0;padding-left:18px}
.summary{display:grid;grid-template-columns:minmax(0,1.35fr) minmax(0,1fr);gap:14px;margin-bottom:14px}
table{border-collapse:collapse;width:100%}
td,th{padding:5px 8px 5px 0;vertical-align:top;text-align:left;border-bottom:1px solid #f1f2f4}
tr:last-child td,tr:last-child th{border-bottom:0}
th{color:#6b7280;font-weight:500;white-space:nowrap;width:1%;padding-right:18px}
td{word-break:break-word}
tr.warn td{color:#b45309}
.phases td,.phases th{font-variant-numeric:tabular-nums}
.phases td.num{text-align:right;white-space:nowrap;padding-left:10px}
.phases thead th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#9ca3af}
.phases tr.minor th,.phases tr.minor td{color:#9ca3af}
.phases tr.total th,.phases tr.total td{font-weight:650;color:#111827;border-top:1px solid #e5e7eb}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:7px;vertical-align:-1px}
.stackbar{display:flex;height:14px;border-radius:4px;overflow:hidden;margin:4px 0 12px;background:#f3f4f6}
.stackbar span{display:block;height:100%}
.charts{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:14px}
figure{margin:0;grid-column:span 3}
figure.third{grid-column:span 2}
figure.full{grid-column:1/-1}
figcaption{margin-bottom:6px}
figcaption .hint{display:block;color:#6b7280;font-size:12px}
.plot{min-height:200px}
.plot .uplot{width:100%;font-family:inherit}
.plot .u-legend{font-size:12px;text-align:left;margin:4px 0 0}
.plot .u-legend .u-series>*{padding:2px 4px}
.plot .u-legend .u-value{font-variant-numeric:tabular-nums}
.empty{display:flex;align-items:center;justify-content:center;min-height:200px;margin:0;color:#9ca3af;font-size:14px;background:#fafafa;border-radius:6px}
.marks{list-style:none;margin:4px 0 0;padding:0;font-size:12px;color:#374151;display:flex;flex-wrap:wrap;gap:4px 14px}
.marks span{display:inline-block;width:0;height:12px;border-left:2px dashed;margin-right:6px;vertical-align:-2px}
.mark-tip{margin:2px 0 0;min-height:1em;color:#4b5563;font-size:12px}
.charts-hint{grid-column:1/-1;margin:0;color:#6b7280;font-size:12px}
.note{margin:6px 0 0;color:#b45309;font-size:12px}
details{margin-top:14px}
details summary{cursor:pointer;font-weight:650}
pre{margin:12px 0 0;padding:12px 14px;background:#f8fafc;border:1px solid #e5e7eb;border-radius:8px;overflow:auto;font:12px/1.5 ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono","DejaVu Sans Mono",monospace}
footer{margin-top:18px;color:#9ca3af;font-size:12px}
@media (max-width:900px){.tiles{grid-template-columns:1fr 1fr}.summary{grid-template-columns:1fr}figure,figure.third{grid-column:1/-1}}
@media print{body{background:#fff}.card{box-shadow:none;break-inside:avoid}}
`;

const PHASE_COLORS: Record<string, string> = {
  compute_max: COLORS.computeMax,
  compute_min: COLORS.computeMin,
  sync: COLORS.sync,
  data: COLORS.data,
  other: COLORS.other,
};

function tile(label: string, value: string, detail: string): string {
  return `<div class="card tile"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div><div class="detail">${escapeHtml(detail)}</div></div>`;
}

function tiles(s: Summary): string {
  const out: string[] = [];
  const tl = s.trainLoss.last;
  out.push(
    tile(
      'final train loss',
      tl ? fmtLoss(tl.value) : '-',
      s.trainLoss.best ? `best ${fmtLoss(s.trainLoss.best.value)} at step ${fmtInt(s.trainLoss.best.step)}` : 'no training line',
    ),
  );
  if (s.evalAccuracy.best) {
    out.push(
      tile('best eval accuracy', fmtPct(s.evalAccuracy.best.value), `step ${fmtInt(s.evalAccuracy.best.step)}; last ${fmtPct(s.evalAccuracy.last!.value)}`),
    );
  } else if (s.evalLoss.best) {
    out.push(tile('best eval loss', fmtLoss(s.evalLoss.best.value), `step ${fmtInt(s.evalLoss.best.step)}; last ${fmtLoss(s.evalLoss.last!.value)}`));
  } else {
    out.push(tile('eval', '-', 'no eval in this run'));
  }
  out.push(tile('samples / s', s.medianSamplesPerSec === null ? '-' : fmtInt(s.medianSamplesPerSec), 'median over the log lines'));
  out.push(
    tile(
      'step time',
      s.phaseMs ? `${fmtMs(s.phaseMs.step)} ms` : '-',
      s.phaseMs
        ? `compute ${fmtPct(s.phaseMs.compute_max / s.phaseMs.step, 0)} · sync ${fmtPct(s.phaseMs.sync / s.phaseMs.step, 0)} · data ${fmtPct(s.phaseMs.data / s.phaseMs.step, 0)}`
        : 'no timing',
    ),
  );
  return `<section class="tiles">${out.join('')}</section>`;
}

function alerts(s: Summary, run: RunData): string {
  const items: string[] = [];
  if (s.nonFiniteLossSteps.length)
    items.push(
      `${s.nonFiniteLossSteps.length} training loss value${s.nonFiniteLossSteps.length === 1 ? ' is' : 's are'} NaN or infinite; the charts leave ${s.nonFiniteLossSteps.length === 1 ? 'it' : 'them'} out and mark where.`,
    );
  if (s.skippedSteps.length)
    items.push(`${s.skippedSteps.length} step${s.skippedSteps.length === 1 ? ' was' : 's were'} skipped (non-finite loss or gradient).`);
  if (s.failures.length)
    items.push(
      `${s.failures.length} worker failure${s.failures.length === 1 ? '' : 's'}: ${s.failures.map((f) => `step ${f.step}, rank ${f.ranks.join(', ')}: ${f.message} (${f.action})`).join('; ')}`,
    );
  for (const u of run.unreadable)
    items.push(
      u.torn
        ? `The last line of metrics.jsonl is torn (the run was cut off while writing it) and is ignored.`
        : `Line ${u.line} of metrics.jsonl is not a metrics line and is ignored: ${u.text}`,
    );
  if (!run.configText) items.push('No config.yaml in the run directory: workers and backend are unknown.');
  if (!items.length) return '';
  return `<section class="alerts"><ul>${items
    .slice(0, 12)
    .map((i) => `<li>${escapeHtml(i)}</li>`)
    .join('')}${items.length > 12 ? `<li>and ${items.length - 12} more</li>` : ''}</ul></section>`;
}

function summaryTable(s: Summary): string {
  const rows = summaryRows(s).filter((r) => r.label !== 'run');
  return `<div class="card"><h2>Summary</h2><table class="kv">${rows.map((r) => `<tr${r.warn ? ' class="warn"' : ''}><th>${escapeHtml(r.label)}</th><td>${escapeHtml(r.value)}</td></tr>`).join('')}</table></div>`;
}

function phaseTable(s: Summary): string {
  const rows = phaseRows(s);
  if (!rows.length) return `<div class="card"><h2>Time per step</h2><p class="sub">No timing: no training line.</p></div>`;
  const step = s.phaseMs!.step;
  const bar = rows
    .filter((r) => r.additive)
    .map(
      (r) =>
        `<span title="${escapeHtml(`${r.label}: ${fmtPct(r.pct, 1)}`)}" style="width:${Math.max(0, (100 * r.ms) / step).toFixed(2)}%;background:${PHASE_COLORS[r.phase]}"></span>`,
    )
    .join('');
  const body = rows
    .map((r) => {
      const cls = r.phase === 'step' ? ' class="total"' : r.additive ? '' : ' class="minor"';
      const sw = PHASE_COLORS[r.phase]
        ? `<span class="swatch" style="background:${PHASE_COLORS[r.phase]}${r.additive ? '' : ';opacity:.55'}"></span>`
        : '<span class="swatch"></span>';
      const pct = r.phase === 'step' ? '100%' : fmtPct(r.pct, 1);
      return `<tr${cls}><th>${sw}${escapeHtml(r.label)}</th><td class="num">${fmtMs(r.ms)}</td><td class="num">${pct}</td></tr>`;
    })
    .join('');
  return (
    `<div class="card"><h2>Time per step <span class="stamp">mean over ${fmtInt(s.phaseSteps)} step${s.phaseSteps === 1 ? '' : 's'}</span></h2>` +
    `<div class="stackbar">${bar}</div>` +
    `<table class="phases"><thead><tr><th></th><th style="text-align:right">ms</th><th style="text-align:right">of step</th></tr></thead><tbody>${body}</tbody></table>` +
    `<p class="sub" style="font-size:12px;margin-top:8px">compute (slowest) + sync + data + other = step; the fastest worker's compute shows the imbalance between workers.</p></div>`
  );
}

/** A chart's place: uPlot draws into .plot; a chart with nothing to draw says why instead. */
function figure(c: Chart): string {
  const p = c.plot;
  const marks = p.kind === 'line' ? p.markLegend : [];
  return (
    `<figure class="card ${c.size}" id="chart-${c.id}"><figcaption><h3>${escapeHtml(c.title)}</h3><span class="hint">${escapeHtml(c.subtitle)}</span></figcaption>` +
    (p.empty === null
      ? `<div class="plot" data-height="${c.size === 'third' ? 240 : 280}" role="img" aria-label="${escapeHtml(`${c.title} against step`)}"></div>`
      : `<p class="empty">${escapeHtml(p.empty)}</p>`) +
    (marks.length
      ? `<ul class="marks">${marks.map((m) => `<li><span style="border-color:${escapeHtml(m.color)}"></span>${escapeHtml(m.name)}</li>`).join('')}</ul><p class="mark-tip"></p>`
      : '') +
    c.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('') +
    `</figure>`
  );
}

/**
 * The charts' data for the page's script: each series' steps stored once in `steps` (the train
 * series of four charts share one list) and named by index.
 */
export function chartData(charts: Chart[]): { steps: number[][]; charts: { id: string; plot: unknown }[] } {
  const steps: number[][] = [];
  const index = new Map<string, number>();
  const stepsIndex = (xs: number[]) => {
    const key = xs.join(',');
    let i = index.get(key);
    if (i === undefined) {
      i = steps.push(xs) - 1;
      index.set(key, i);
    }
    return i;
  };
  return {
    steps,
    charts: charts.map((c) => ({
      id: c.id,
      plot: c.plot.kind === 'line' ? { ...c.plot, series: c.plot.series.map((s) => ({ ...s, x: stepsIndex(s.x) })) } : c.plot,
    })),
  };
}

/** JSON inside <script>: every '<' as \u003c, so no string in it ('</script>', '<!--') ends or bends the block. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const NOSCRIPT =
  '<noscript><p class="charts-hint note">The charts are drawn by JavaScript inlined in this page (uPlot; nothing is fetched), which is off: the tables above hold the run’s figures, and each chart’s notes are below its title.</p></noscript>';

/** `refreshSeconds`: the page reloads itself (report --watch rewrites it as metrics arrive). */
export function renderHtml(run: RunData, s: Summary, opts: { generatedAt?: Date; refreshSeconds?: number } = {}): string {
  const charts = buildCharts(run);
  const uplot = uplotAssets();
  const when = (opts.generatedAt ?? new Date())
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const facts = [
    s.steps === null ? null : `${fmtInt(s.steps)} steps`,
    s.epochs === null ? null : `${s.epochs} epoch${s.epochs === 1 ? '' : 's'}`,
    s.workers ? `${s.workers.replace(/ \(.*\)$/, '')} worker${s.workers.startsWith('1 ') ? '' : 's'}` : null,
    s.finalModel ? 'finished' : 'not finished',
  ]
    .filter(Boolean)
    .join(' · ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">${opts.refreshSeconds ? `\n<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : ''}
<title>${escapeHtml(s.name)} · mgpu-train report</title>
<style>${uplot.css}</style>
<style>${CSS}</style>
</head>
<body>
<main>
<header><div><h1><span class="kind">Training report · </span>${escapeHtml(s.name)}</h1><p class="sub">${escapeHtml(s.runDir)} · ${escapeHtml(facts)}</p></div><div class="stamp">generated ${escapeHtml(when)}</div></header>
${alerts(s, run)}
${tiles(s)}
<section class="summary">${summaryTable(s)}${phaseTable(s)}</section>
<section class="charts">
<p class="charts-hint">Hover a chart for the values at a step (in the legend under it), drag across it to zoom into those steps, double-click to zoom out.</p>${NOSCRIPT}
${charts.map(figure).join('\n')}
</section>
<details class="card"><summary>config.yaml</summary>${run.configText === null ? '<p class="sub">The run directory has no config.yaml.</p>' : `<pre>${escapeHtml(run.configText)}</pre>`}</details>
<footer>mgpu-train report · from metrics.jsonl (${fmtInt(run.train.length)} training, ${fmtInt(run.evals.length)} eval, ${fmtInt(run.events.length)} event line${run.events.length === 1 ? '' : 's'}) and config.yaml</footer>
</main>
<script type="application/json" id="report-data">${scriptJson(chartData(charts))}</script>
<script>${uplot.script}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
