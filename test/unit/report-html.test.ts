// report.html is one self-contained page: nothing fetched from anywhere (its only scripts inline:
// uPlot, the charts' data and the script that draws them), one chart per figure, and every value
// in the data block a finite number or null, at a step inside the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { barPlot, figureOf, linePlot, pageData, seriesValues, withoutScripts, type PageData } from '../helpers/report-page.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function writeRun(lines: object[], config: string | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-html-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  if (config !== null) fs.writeFileSync(path.join(dir, 'config.yaml'), config);
  return dir;
}

/** A run of `n` log lines every `every` steps, with a cosine lr, evals, a skip and a failure. */
function synthRun(n: number, every: number): object[] {
  const lines: object[] = [];
  for (let i = 1; i <= n; i++) {
    const step = i * every;
    const wob = Math.sin(i * 1.7);
    const cmax = 40 + 5 * wob;
    lines.push({
      type: 'train',
      step,
      epoch: Math.floor(step / 100),
      loss: 2 * Math.exp(-step / 300) + 0.05 + 0.02 * wob,
      lr: 0.001 * (0.5 + 0.5 * Math.cos((Math.PI * step) / (n * every))),
      samples_per_sec: 2000 + 100 * wob,
      compute_max_ms: cmax,
      compute_min_ms: cmax - 6,
      sync_ms: 5,
      data_ms: 1,
      step_ms: i === 1 ? 900 : cmax + 8,
      grad_norm: 3 * Math.exp(-step / 500) + 0.1,
    });
    if (step % 100 === 0)
      lines.push({
        type: 'eval',
        step,
        epoch: Math.floor(step / 100),
        samples: 1000,
        loss: 2 * Math.exp(-step / 300) + 0.1,
        accuracy: 1 - Math.exp(-step / 200),
        top_k: 1 - 0.3 * Math.exp(-step / 200),
        k: 5,
        mae: 0.1,
      });
    if (i === 7) lines.push({ type: 'skip', step: step + 1, ranks: [1], message: 'non-finite', action: 'skipped' });
    if (i === 9) lines.push({ type: 'failure', step, ranks: [0], message: 'worker rank 0 failed', action: 'restart' });
  }
  return lines;
}

const CONFIG =
  'name: html-run\ntraining:\n  batchSize: 128\ndevices:\n  gpus: all\n  simulate: 2\n  backend: wasm\n  shmDir: /dev/shm\nnote: "<b>not markup</b>"\n';

async function html(dir: string): Promise<string> {
  const { htmlPath } = await report(dir, { line: () => {} });
  return fs.readFileSync(htmlPath, 'utf8');
}

const CHART_IDS = ['loss', 'accuracy', 'lr', 'throughput', 'grad-norm', 'phases'];

test('report.html is self-contained: no URL to fetch, only inline scripts, no external style or font', async () => {
  const page = await html(writeRun(synthRun(60, 5), CONFIG));
  assert.match(page, /^<!doctype html>/);
  assert.doesNotMatch(page, /\b(src|href|xlink:href|action|poster|data)\s*=\s*["']?\s*(https?:)?\/\//i, 'a src/href to a URL');
  assert.doesNotMatch(page, /https?:\/\//i, 'any http(s) URL at all');
  const scripts = [...page.matchAll(/<script\b([^>]*)>/gi)].map((m) => m[1]!.trim());
  assert.deepEqual(scripts, ['type="application/json" id="report-data"', '', ''], 'the data block, uPlot and the page script, all inline');
  assert.match(page, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">/);
  assert.doesNotMatch(page, /<link\b/i);
  assert.doesNotMatch(page, /<(img|iframe|object|embed)\b/i);
  assert.doesNotMatch(page, /@import|url\(|@font-face/i);
  assert.match(page, /<style>[\s\S]+<\/style>/);
});

test('report.html: one chart per figure, each with its axis label, its series (the legend) and its data', async () => {
  const page = await html(writeRun(synthRun(60, 5), CONFIG));
  const charts = [...page.matchAll(/<figure class="card [a-z]+" id="chart-([a-z-]+)">([\s\S]*?)<\/figure>/g)];
  assert.deepEqual(
    charts.map((c) => c[1]),
    CHART_IDS,
  );
  const data = pageData(page);
  assert.deepEqual(
    data.charts.map((c) => c.id),
    CHART_IDS,
  );
  for (const [, id, fig] of charts) {
    assert.equal((fig!.match(/<div class="plot"/g) ?? []).length, 1, `${id}: one plot`);
    const plot = data.charts.find((c) => c.id === id)!.plot;
    assert.ok(plot.yLabel.length > 0, `${id}: y axis label`);
    const names = plot.kind === 'line' ? plot.series.map((x) => x.name) : plot.layers.map((l) => l.name);
    assert.ok(names.length > 0 && names.every((n) => n.length > 0), `${id}: legend entries ${names.join(', ')}`);
  }
  assert.equal((page.match(/<div class="plot"/g) ?? []).length, CHART_IDS.length, 'no plot outside the charts');
  assert.match(page, /<title>html-run · mgpu-train report<\/title>/);
  assert.match(page, /<h1>[^]*html-run<\/h1>/);
});

/** Every value a finite number or null, steps ascending inside [0, xMax], as many values as steps. */
function assertData(data: PageData, label: string): number {
  let series = 0;
  for (const { id, plot } of data.charts) {
    if (plot.kind === 'bars') {
      let end = 0;
      for (const [start, stop] of plot.spans) {
        assert.ok(Number.isFinite(start) && Number.isFinite(stop) && start >= 0 && start < stop && stop <= plot.xMax, `${label} ${id}: span ${start}-${stop}`);
        assert.ok(stop > end, `${label} ${id}: spans in step order`);
        end = stop;
      }
      for (const l of [...plot.layers, ...(plot.overlay ? [plot.overlay] : [])]) {
        assert.equal(l.values.length, plot.spans.length, `${label} ${id}: a value per bar`);
        for (const v of l.values) assert.ok(v === null || Number.isFinite(v), `${label} ${id}: ${l.name} ${v}`);
      }
      continue;
    }
    for (const s of plot.series) {
      series++;
      const steps = data.steps[s.x]!;
      assert.equal(steps.length, s.y.length, `${label} ${id}/${s.name}: a value per step`);
      steps.forEach((x, i) => {
        assert.ok(Number.isFinite(x) && x >= 0 && x <= plot.xMax, `${label} ${id}/${s.name}: step ${x} outside 0-${plot.xMax}`);
        if (i) assert.ok(x > steps[i - 1]!, `${label} ${id}/${s.name}: steps ascending`);
      });
      for (const v of s.y) assert.ok(v === null || Number.isFinite(v), `${label} ${id}/${s.name}: ${v}`);
    }
  }
  return series;
}

test('report.html: every value in the data block is a finite number or null, at an ascending step inside the run', async () => {
  for (const [n, every] of [
    [60, 5],
    [3, 10],
    [500, 2],
  ]) {
    const page = await html(writeRun(synthRun(n!, every!), CONFIG));
    const series = assertData(pageData(page), `${n} lines`);
    assert.ok(series >= 4, `${n} lines: ${series} series`);
    assert.doesNotMatch(withoutScripts(page), /NaN|Infinity|undefined/, `${n} lines: NaN/Infinity/undefined in the markup`);
  }
});

test('report.html: the loss chart has train loss as a line and eval loss as points; the phase chart stacks four layers', async () => {
  const page = await html(writeRun(synthRun(30, 5), CONFIG));
  const loss = linePlot(page, 'loss');
  const train = loss.series.find((x) => x.name === 'train loss')!;
  assert.equal(train.color, '#2563eb');
  assert.equal(train.style, 'line');
  assert.equal(loss.series.find((x) => x.name === 'eval loss')!.style, 'points');
  assert.deepEqual([...seriesValues(page, 'loss', 'eval loss').keys()], [100], 'the one eval (step 100) as a point');
  assert.deepEqual(
    loss.series.map((x) => x.name),
    ['train loss', 'eval loss'],
  );
  for (const name of ['skipped step', 'worker failure']) assert.match(figureOf(page, 'loss'), new RegExp(`<li><span [^>]*></span>${name}</li>`));
  const phases = barPlot(page);
  assert.deepEqual(
    phases.layers.map((l) => l.name),
    ['compute (slowest worker)', 'sync', 'data', 'other'],
  );
  assert.equal(phases.overlay?.name, 'compute (fastest worker)');
  assert.equal(phases.spans.length, 30, 'a bar per log line');
  assert.ok(phases.cappedAt !== null && phases.cappedAt < 900, 'the 900 ms warm-up line is cut, not the scale');
  assert.match(page, /The axis stops at/);
});

test('report.html: the summary table, the phase table and config.yaml (escaped) in a <details>', async () => {
  const page = await html(writeRun(synthRun(60, 5), CONFIG));
  assert.match(page, /<th>train loss<\/th><td>final [\d.]+ \(step 300\)/);
  assert.match(page, /<th>eval accuracy<\/th>/);
  assert.match(page, /<th>skipped steps<\/th><td>1: 36<\/td>/);
  assert.match(page, /compute \(slowest worker\)<\/th><td class="num">[\d.]+<\/td><td class="num">[\d.]+%/);
  const details = /<details[^>]*><summary>config.yaml<\/summary><pre>([\s\S]*?)<\/pre><\/details>/.exec(page);
  assert.ok(details);
  assert.match(details[1]!, /backend: wasm/);
  assert.match(details[1]!, /&lt;b&gt;not markup&lt;\/b&gt;/);
  assert.doesNotMatch(page, /<b>not markup<\/b>/);
});
