// The script of report.html, run in node:vm: its hover texts read as the summary's (format.ts),
// the uPlot table it builds merges each series' steps into one x, leaving a step a series does
// not log undefined (uPlot draws the line across it) and a NaN null (a gap), and it builds one
// chart per figure that has something to draw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCharts } from '../../src/report/charts.ts';
import { fmtInt, fmtLoss, fmtPct, fmtSig, fmtTick } from '../../src/report/format.ts';
import { chartData, scriptJson } from '../../src/report/html.ts';
import type { RunData } from '../../src/report/read-run.ts';
import { runPageScript } from '../helpers/report-page-vm.ts';
import { trainLine } from '../helpers/train-line.ts';

const VALUES = [0, 1, -1, 0.5, 0.123456, 2.5, 1e-4, 0.00123, 12345.678, 1e6, 2.5e7, -3.25e-5, NaN, Infinity, -Infinity];

test('hover values: each format of the page as format.ts writes it', () => {
  const { api } = runPageScript(JSON.stringify({ steps: [], charts: [] }), []);
  const node: Record<string, (v: number) => string> = {
    loss: fmtLoss,
    pct: (v) => fmtPct(v),
    int: fmtInt,
    sig3: (v) => fmtSig(v, 3),
    sig4: (v) => fmtSig(v, 4),
  };
  assert.deepEqual([...Object.keys(api.formats)].sort(), Object.keys(node).sort());
  for (const [name, f] of Object.entries(node)) for (const v of VALUES) assert.equal(api.formats[name]!(v), f(v), `${name}(${v})`);
  for (const [v, step] of [
    [0.25, 0.05],
    [20000, 5000],
    [3e6, 5e5],
    [4e-5, 2e-5],
    [150, 50],
  ] as const)
    assert.equal(api.fmtTick(v, step), fmtTick(v, step), `tick ${v} by ${step}`);
});

const line = (step: number, loss: number) => trainLine(step, { loss });
const evalLine = (step: number) => ({ type: 'eval', step, epoch: 0, samples: 10, loss: 0.7, accuracy: 0.5, top_k: null, k: 5, mae: 0.1 });

test('the loss table: eval-only steps undefined in the train column (spanned), a NaN loss null (a gap)', () => {
  const run = { train: [line(10, 1), line(20, NaN), line(30, 0.8)], evals: [evalLine(15), evalLine(30)], events: [], config: null } as unknown as RunData;
  const charts = buildCharts(run);
  const { built } = runPageScript(
    scriptJson(chartData(charts)),
    charts.map((c) => c.id),
  );
  assert.deepEqual(
    built.map((b) => b.el.id),
    ['loss', 'accuracy', 'lr', 'throughput', 'grad-norm', 'phases'],
  );
  const loss = built[0]!;
  assert.deepEqual(
    Array.from(loss.opts.series, (s) => s.label), // arrays of the vm's realm, copied into this one
    ['step', 'train loss', 'eval loss'],
  );
  assert.deepEqual(
    Array.from(loss.data, (c) => Array.from(c)),
    [
      [10, 15, 20, 30],
      [1, undefined, null, 0.8],
      [undefined, 0.7, undefined, 0.7],
    ],
  );
  assert.equal(loss.opts.series[1]!.value(null, 0.8), '0.8000', 'the legend shows the loss as fmtLoss does');
  assert.equal(loss.opts.series[1]!.value(null, null), '–', 'no value at the cursor: a dash');
  assert.equal(built[1]!.opts.series[1]!.value(null, 0.5), '50.00%', 'accuracy as a percentage');
});

test('a chart with nothing to draw builds no uPlot', () => {
  const run = { train: [line(10, 1)], evals: [], events: [], config: null } as unknown as RunData;
  const charts = buildCharts(run);
  const { built } = runPageScript(
    scriptJson(chartData(charts)),
    charts.map((c) => c.id),
  );
  assert.ok(!built.some((b) => b.el.id === 'accuracy'), 'no eval: the accuracy chart is its message only');
  assert.equal(built.length, charts.length - 1);
});
