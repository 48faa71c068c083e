// `mgpu-train report` on a run with config metrics: the summary has a row per metric (last and
// best, or last only for a custom metric, whose direction is unknown), and report.html draws
// them: classification scores, errors and custom values on their own charts. A run without
// metrics gets none of it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { readRun } from '../../src/report/read-run.ts';
import { summarize, summaryRows } from '../../src/report/summary.ts';
import { trainLine as standardTrainLine } from '../helpers/train-line.ts';
import { seriesValues, withoutScripts } from '../helpers/report-page.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const trainLine = (step: number) => standardTrainLine(step, { compute_min_ms: 8, sync_ms: 1, step_ms: 13, grad_norm: 1 });
const evalLine = (step: number, metrics?: Record<string, number | null>) => ({
  type: 'eval',
  step,
  epoch: 0,
  samples: 37,
  loss: 1 / step,
  accuracy: 0.5 + step / 100,
  top_k: 0.9,
  k: 2,
  mae: 0.3,
  ...(metrics ? { metrics } : {}),
});

function writeRun(lines: object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-metrics-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  fs.writeFileSync(path.join(dir, 'config.yaml'), 'name: metrics-run\ndevices:\n  gpus: all\n  simulate: 3\n  backend: cpu\n');
  return dir;
}

const WITH = [
  trainLine(10),
  evalLine(10, { accuracy: 0.6, precision_macro: 0.55, f1_micro: 0.6, auc: 0.7, rmse: 0.5, 'hits.rate': 12 }),
  trainLine(20),
  evalLine(20, { accuracy: 0.7, precision_macro: 0.52, f1_micro: 0.7, auc: null, rmse: 0.4, 'hits.rate': 15 }),
];

test('summary: a row per metric with last and best; accuracy not twice; a custom value last only', async () => {
  const s = summarize(await readRun(writeRun(WITH)));
  assert.deepEqual(
    s.evalMetrics.map((m) => m.key),
    ['accuracy', 'precision_macro', 'f1_micro', 'auc', 'rmse', 'hits.rate'],
  );
  const rows = Object.fromEntries(summaryRows(s).map((r) => [r.label, r.value]));
  assert.equal(rows['eval precision_macro'], 'last 0.52 (step 20), best 0.55 (step 10)');
  assert.equal(rows['eval f1_micro'], 'last 0.7 (step 20), also the best');
  assert.equal(rows['eval rmse'], 'last 0.4 (step 20), also the best', 'lower is better');
  assert.equal(rows['eval auc'], 'last 0.7 (step 10), also the best', 'an undefined value (null) is not a measurement');
  assert.equal(rows['eval hits.rate'], 'last 15 (step 20)');
  assert.equal(rows['eval accuracy'], 'last 70.00% (step 20), also the best', 'the shipped accuracy row, once');
  assert.equal(Object.keys(rows).filter((k) => k.includes('accuracy')).length, 1);
});

test('report.html draws the metrics: scores, errors and custom values on their own charts', async () => {
  const { htmlPath } = await report(writeRun(WITH), { line: () => {} });
  const html = fs.readFileSync(htmlPath, 'utf8');
  for (const id of ['eval-metrics', 'eval-errors', 'eval-custom']) assert.match(html, new RegExp(`id="chart-${id}"`));
  assert.equal(seriesValues(html, 'eval-metrics', 'precision_macro').get(20), 0.52);
  assert.equal(seriesValues(html, 'eval-metrics', 'f1_micro').get(10), 0.6);
  assert.deepEqual([...seriesValues(html, 'eval-metrics', 'auc')], [[10, 0.7]], 'an undefined AUC (null) is not drawn');
  assert.equal(seriesValues(html, 'eval-errors', 'rmse').get(20), 0.4);
  assert.equal(seriesValues(html, 'eval-custom', 'hits.rate').get(20), 15);
  assert.doesNotMatch(withoutScripts(html), /NaN|undefined/);
});

test('a run without metrics: no metric rows, no metric charts', async () => {
  const dir = writeRun([trainLine(10), evalLine(10), trainLine(20), evalLine(20)]);
  const s = summarize(await readRun(dir));
  assert.deepEqual(s.evalMetrics, []);
  assert.ok(!summaryRows(s).some((r) => r.label.startsWith('eval ') && !['eval loss', 'eval accuracy', 'eval top-2'].includes(r.label)));
  const { htmlPath } = await report(dir, { line: () => {} });
  assert.doesNotMatch(fs.readFileSync(htmlPath, 'utf8'), /chart-eval-(metrics|errors|custom)/);
});
