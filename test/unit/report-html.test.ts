// report.html is one self-contained page: nothing fetched from anywhere, one <svg> per chart,
// and every drawn coordinate a finite number inside its chart's viewBox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';

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

interface Svg {
  w: number;
  h: number;
  body: string;
}

function svgs(page: string): Svg[] {
  return [...page.matchAll(/<svg\b([^>]*)>([\s\S]*?)<\/svg>/g)].map((m) => {
    const vb = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(m[1]!);
    assert.ok(vb, `an svg without a viewBox: ${m[1]}`);
    return { w: Number(vb[1]), h: Number(vb[2]), body: m[2]! };
  });
}

/** Every coordinate of polylines, polygons, circles, rects and lines: finite and inside. */
function assertInside(svg: Svg, label: string): number {
  let polylines = 0;
  const inside = (x: number, y: number, what: string) => {
    assert.ok(Number.isFinite(x) && Number.isFinite(y), `${label}: ${what} has a non-finite coordinate ${x},${y}`);
    assert.ok(x >= 0 && x <= svg.w && y >= 0 && y <= svg.h, `${label}: ${what} at ${x},${y} is outside 0 0 ${svg.w} ${svg.h}`);
  };
  for (const m of svg.body.matchAll(/<(polyline|polygon)\b[^>]*\bpoints="([^"]*)"/g)) {
    polylines += m[1] === 'polyline' ? 1 : 0;
    const pairs = m[2]!.trim().split(/\s+/);
    assert.ok(pairs.length >= 2, `${label}: a ${m[1]} of fewer than 2 points`);
    for (const p of pairs) {
      const [x, y, extra] = p.split(',');
      assert.equal(extra, undefined, `${label}: point ${p}`);
      assert.match(x!, /^-?\d+(\.\d+)?$/, `${label}: point ${p}`);
      assert.match(y!, /^-?\d+(\.\d+)?$/, `${label}: point ${p}`);
      inside(Number(x), Number(y), m[1]!);
    }
  }
  for (const m of svg.body.matchAll(/<circle\b[^>]*\bcx="([^"]*)" cy="([^"]*)"/g)) inside(Number(m[1]), Number(m[2]), 'circle');
  for (const m of svg.body.matchAll(/<rect\b[^>]*\bx="([^"]*)" y="([^"]*)" width="([^"]*)" height="([^"]*)"/g)) {
    inside(Number(m[1]), Number(m[2]), 'rect');
    inside(Number(m[1]) + Number(m[3]), Number(m[2]) + Number(m[4]), 'rect corner');
  }
  for (const m of svg.body.matchAll(/<line\b[^>]*\bx1="([^"]*)" y1="([^"]*)" x2="([^"]*)" y2="([^"]*)"/g)) {
    inside(Number(m[1]), Number(m[2]), 'line');
    inside(Number(m[3]), Number(m[4]), 'line');
  }
  assert.doesNotMatch(svg.body, /NaN|Infinity|undefined/, `${label}: NaN/Infinity/undefined in the markup`);
  return polylines;
}

const CHART_IDS = ['loss', 'accuracy', 'lr', 'throughput', 'grad-norm', 'phases'];

test('report.html is self-contained: no URL to fetch, no script, no external style or font', async () => {
  const page = await html(writeRun(synthRun(60, 5), CONFIG));
  assert.match(page, /^<!doctype html>/);
  assert.doesNotMatch(page, /\b(src|href|xlink:href|action|poster|data)\s*=\s*["']?\s*(https?:)?\/\//i, 'a src/href to a URL');
  assert.doesNotMatch(page, /https?:\/\//i, 'any http(s) URL at all');
  assert.doesNotMatch(page, /<script\b/i);
  assert.doesNotMatch(page, /<link\b/i);
  assert.doesNotMatch(page, /<(img|iframe|object|embed)\b/i);
  assert.doesNotMatch(page, /@import|url\(|@font-face/i);
  assert.match(page, /<style>[\s\S]+<\/style>/);
});

test('report.html: one <svg> per chart, each with axes, tick labels, axis labels and a legend', async () => {
  const page = await html(writeRun(synthRun(60, 5), CONFIG));
  const charts = [...page.matchAll(/<figure class="card [a-z]+" id="chart-([a-z-]+)">([\s\S]*?)<\/figure>/g)];
  assert.deepEqual(
    charts.map((c) => c[1]),
    CHART_IDS,
  );
  for (const [, id, fig] of charts) {
    assert.equal((fig!.match(/<svg\b/g) ?? []).length, 1, `${id}: one svg`);
    const s = svgs(fig!)[0];
    assert.ok((s!.body.match(/class="tick"/g) ?? []).length >= 6, `${id}: tick labels`);
    assert.match(s!.body, />step<\/text>/, `${id}: x axis label`);
    assert.match(s!.body, /class="axis-label"[^>]*>[^<]+<\/text>/, `${id}: y axis label`);
    assert.match(s!.body, /<g class="legend">/, `${id}: legend`);
  }
  assert.equal(svgs(page).length, CHART_IDS.length, 'no <svg> outside the charts');
  assert.match(page, /<title>html-run · mgpu-train report<\/title>/);
  assert.match(page, /<h1>[^]*html-run<\/h1>/);
});

test('report.html: every polyline point is a finite number inside its viewBox', async () => {
  for (const [n, every] of [
    [60, 5],
    [3, 10],
    [500, 2],
  ]) {
    const page = await html(writeRun(synthRun(n!, every!), CONFIG));
    let polylines = 0;
    svgs(page).forEach((s, i) => (polylines += assertInside(s, `${n} lines, chart ${CHART_IDS[i]}`)));
    assert.ok(polylines >= 5, `${n} lines: ${polylines} polylines`);
  }
});

test('report.html: the loss chart has train loss as a line and eval loss as points; the phase chart stacks four layers', async () => {
  const page = await html(writeRun(synthRun(30, 5), CONFIG));
  const [loss, , , , , phases] = svgs(page);
  assert.match(loss!.body, /<polyline[^>]*stroke="#2563eb"/);
  assert.ok((loss!.body.match(/<title>eval loss, step \d+/g) ?? []).length === 1, 'the one eval (step 100) as a point');
  for (const name of ['train loss', 'eval loss', 'skipped step', 'worker failure']) assert.match(loss!.body, new RegExp(`class="legend">${name}<`));
  for (const name of ['compute (slowest worker)', 'sync', 'data', 'other', 'compute (fastest worker)'])
    assert.match(phases!.body, new RegExp(`class="legend">${name.replace(/[()]/g, '\\$&')}<`));
  assert.equal((phases!.body.match(/<g><title>steps /g) ?? []).length, 30, 'a bar per log line');
  assert.match(page, /The axis stops at/, 'the 900 ms warm-up line is cut, not the scale');
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
