// The "Where a step goes" bars sit at the steps their lines were logged at, as the other charts'
// points do: a bar narrowed to 48 px ends at its line's step (not at the middle of the interval it
// averages), and a bar after a skipped step still starts at the previous line's step. The page's
// script draws them (run here in node:vm on a canvas stand-in).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCharts } from '../../src/report/charts.ts';
import { chartData, scriptJson } from '../../src/report/html.ts';
import type { RunData } from '../../src/report/read-run.ts';
import { drawOn, runPageScript } from '../helpers/report-page-vm.ts';
import { trainLine as standardTrainLine } from '../helpers/train-line.ts';

function trainLine(step: number) {
  return standardTrainLine(step, { loss: 1 });
}

/** The [x0, x1] of each bar (its first rect) as the page's script draws it on a 1000 px wide plot from x 50. */
function bars(run: RunData): { bars: Array<[number, number]>; at: (step: number) => number } {
  const charts = buildCharts(run);
  const { built } = runPageScript(scriptJson(chartData(charts)), ['phases']);
  const plot = charts.find((c) => c.id === 'phases')!.plot;
  assert.equal(plot.kind, 'bars');
  const rects = drawOn(built[0]!, plot.xMax, plot.yMax);
  const firsts = rects.filter((r) => r.fill === '#3b82f6'); // each bar's first layer: compute (slowest worker)
  return { bars: firsts.map((r) => [r.x, r.x + r.w]), at: (step) => 50 + (step / plot.xMax) * 1000 };
}

test('a narrowed bar ends at the step its line was logged at', () => {
  const run = { train: [trainLine(40), trainLine(100)], evals: [], events: [], config: null } as unknown as RunData;
  const { bars: b, at } = bars(run);
  assert.equal(b.length, 2);
  for (const [i, step] of [40, 100].entries()) {
    assert.ok(Math.abs(b[i]![1] - at(step)) <= 1.5, `bar ${i} ends at x ${b[i]![1]}, step ${step} is at ${at(step)}`);
    assert.ok(b[i]![1] - b[i]![0] <= 48, `bar ${i} is at most 48 px wide: ${b[i]![1] - b[i]![0]}`);
  }
});

test('after a skipped step the bars still tile the steps: each starts where the one before ends', () => {
  const train = Array.from({ length: 100 }, (_, i) => trainLine((i + 1) * 10));
  const skip = { type: 'skip', step: 504, ranks: [], message: 'non-finite loss', action: 'skipped' };
  const run = { train, evals: [], events: [skip], config: null } as unknown as RunData;
  const { bars: b } = bars(run);
  assert.equal(b.length, 100);
  // Drawn with a 1 px gap: bar i starts 1 px after bar i-1 ends.
  for (let i = 1; i < b.length; i++) {
    const gap = b[i]![0] - b[i - 1]![1];
    assert.ok(Math.abs(gap - 1) <= 0.25, `between the bars of steps ${i * 10} and ${(i + 1) * 10}: a gap of ${gap.toFixed(2)} px`);
  }
});
