// `mgpu-train report` on a run of a model with several outputs: its eval lines have each output's
// figures (loss.class, accuracy.class, mae.box ...) and metric keys ending in .<output>. The
// summary has a row per output figure and no model-wide MAE (null in the file, not a NaN); the
// charts draw each output's eval loss, accuracy and top-k, and file each metric by its base key
// (auc.class with the scores, rmse.box with the errors, a custom module's value with the custom).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { readRun } from '../../src/report/read-run.ts';
import { summarize, summaryRows } from '../../src/report/summary.ts';
import { trainLine as standardTrainLine } from '../helpers/train-line.ts';
import { figureOf, linePlot, pageData, seriesValues, withoutScripts } from '../helpers/report-page.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const trainLine = (step: number) => standardTrainLine(step, { compute_min_ms: 8, sync_ms: 1, step_ms: 13, grad_norm: 1 });
// As the trainer writes them: the model-wide accuracy, top_k and mae are null with several outputs.
const evalLine = (step: number, acc: number, boxLoss: number) => ({
  type: 'eval',
  step,
  epoch: 0,
  samples: 37,
  loss: 2 / step,
  accuracy: null,
  top_k: null,
  k: 2,
  mae: null,
  metrics: { 'f1_macro.class': acc - 0.1, 'auc.class': acc + 0.05, 'rmse.box': boxLoss * 2, 'hits.rate.box': step },
  'loss.class': 1 / step,
  'accuracy.class': acc,
  'top_k.class': acc + 0.1,
  'mae.class': 0.3,
  'loss.box': boxLoss,
  'mae.box': boxLoss / 2,
});

function writeRun(lines: object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-outputs-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  fs.writeFileSync(path.join(dir, 'config.yaml'), 'name: two-outputs\ndevices:\n  simulate: 2\n  backend: cpu\n');
  return dir;
}

const RUN = [trainLine(10), evalLine(10, 0.6, 0.4), trainLine(20), evalLine(20, 0.8, 0.5)];

test("summary: each output's figures with last and best, each metric's direction from its base key, no model-wide MAE", async () => {
  const rows = Object.fromEntries(summaryRows(summarize(await readRun(writeRun(RUN)))).map((r) => [r.label, r.value]));
  assert.equal(rows['eval loss.class'], 'last 0.0500 (step 20), also the best');
  assert.equal(rows['eval accuracy.class'], 'last 80.00% (step 20), also the best');
  assert.equal(rows['eval top-2.class'], 'last 90.00% (step 20), also the best');
  assert.equal(rows['eval loss.box'], 'last 0.5000 (step 20), best 0.4000 (step 10)');
  assert.equal(rows['eval MAE.box'], 'last 0.2500 (step 20), best 0.2000 (step 10)', 'box has no accuracy: its MAE row');
  assert.equal(rows['eval MAE.class'], undefined, 'class has an accuracy: no MAE row, as with one output');
  assert.equal(rows['eval MAE'], undefined, 'no model-wide MAE');
  assert.equal(rows['eval rmse.box'], 'last 1 (step 20), best 0.8 (step 10)', 'rmse of an output: lower is better');
  assert.equal(rows['eval auc.class'], 'last 0.85 (step 20), also the best', 'auc of an output: higher is better');
  assert.equal(rows['eval hits.rate.box'], 'last 20 (step 20)', "a custom module's value of an output: direction unknown");
});

test('report.html: per-output eval losses, accuracies and top-k drawn; metrics on the chart of their base key', async () => {
  const { htmlPath } = await report(writeRun(RUN), { line: () => {} });
  const html = fs.readFileSync(htmlPath, 'utf8');
  const data = pageData(html);
  assert.equal(seriesValues(data, 'loss', 'eval loss.class').get(20), 0.05);
  assert.equal(seriesValues(data, 'loss', 'eval loss.box').get(10), 0.4);
  assert.equal(seriesValues(data, 'accuracy', 'accuracy.class').get(10), 0.6);
  assert.equal(linePlot(data, 'accuracy').series.find((x) => x.name === 'accuracy.class')!.format, 'pct', 'shown as 60.00%');
  assert.equal(seriesValues(data, 'accuracy', 'top-2.class').get(20), 0.9);
  assert.equal(seriesValues(data, 'eval-metrics', 'auc.class').get(20), 0.85);
  assert.equal(seriesValues(data, 'eval-metrics', 'f1_macro.class').get(10), 0.5);
  assert.equal(seriesValues(data, 'eval-errors', 'rmse.box').get(20), 1);
  assert.equal(seriesValues(data, 'eval-custom', 'hits.rate.box').get(20), 20);
  assert.deepEqual(
    linePlot(data, 'eval-custom').series.map((x) => x.name),
    ['hits.rate.box'],
    'built-in metrics of an output are not custom values',
  );
  assert.doesNotMatch(figureOf(html, 'eval-custom'), /auc|rmse/);
  assert.doesNotMatch(withoutScripts(html), /NaN|undefined/);
});

test('a model whose outputs are all regressions: the accuracy chart is each output’s MAE', async () => {
  const line = (step: number) => {
    const l: Record<string, unknown> = { ...evalLine(step, 0, 0.3), 'loss.class': 0.1 };
    for (const k of ['accuracy.class', 'top_k.class', 'metrics']) delete l[k];
    return l;
  };
  const { htmlPath } = await report(writeRun([trainLine(10), line(10), trainLine(20), line(20)]), { line: () => {} });
  const html = fs.readFileSync(htmlPath, 'utf8');
  assert.match(figureOf(html, 'accuracy'), /Eval mean absolute error/);
  assert.equal(seriesValues(html, 'accuracy', 'mae.class').get(20), 0.3);
  assert.equal(seriesValues(html, 'accuracy', 'mae.box').get(10), 0.15);
  assert.doesNotMatch(withoutScripts(html), /NaN|undefined/);
});
