// The "Where a step goes" bars sit at the steps their lines were logged at, as the other charts'
// points do: a bar narrowed to 48 px ends at its line's step (not at the middle of the interval it
// averages), and a bar after a skipped step still starts at the previous line's step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCharts } from '../../src/report/charts.ts';
import type { RunData } from '../../src/report/read-run.ts';

function trainLine(step: number) {
  return {
    type: 'train',
    step,
    epoch: 0,
    loss: 1,
    lr: 0.01,
    samples_per_sec: 100,
    compute_max_ms: 10,
    compute_min_ms: 9,
    sync_ms: 2,
    data_ms: 1,
    step_ms: 14,
    grad_norm: 0.5,
  };
}

/** The x of each tick label of the step axis, and the [x0, x1] of each bar (its first rect). */
function geometry(svg: string): { ticks: Map<number, number>; bars: Array<[number, number]> } {
  const ticks = new Map<number, number>();
  for (const m of svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle" class="tick">(\d+)<\/text>/g)) ticks.set(Number(m[2]), Number(m[1]));
  const bars: Array<[number, number]> = [];
  for (const g of svg.matchAll(/<g><title>[^<]*<\/title><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g))
    bars.push([Number(g[1]), Number(g[1]) + Number(g[2])]);
  return { ticks, bars };
}

test('a narrowed bar ends at the step its line was logged at', async () => {
  const run = { train: [trainLine(40), trainLine(100)], evals: [], events: [], config: null } as unknown as RunData;
  const phases = buildCharts(run).find((c) => c.id === 'phases')!;
  const { ticks, bars } = geometry(phases.svg);
  assert.equal(bars.length, 2);
  for (const [i, step] of [40, 100].entries()) {
    const tick = ticks.get(step);
    assert.ok(tick !== undefined, `the step axis has a tick at ${step}: ${[...ticks.keys()].join(', ')}`);
    assert.ok(Math.abs(bars[i]![1] - tick) <= 1.5, `bar ${i} ends at x ${bars[i]![1]}, the tick of step ${step} is at ${tick}`);
  }
});

test('after a skipped step the bars still tile the steps: each starts where the one before ends', () => {
  const train = Array.from({ length: 100 }, (_, i) => trainLine((i + 1) * 10));
  const skip = { type: 'skip', step: 504, ranks: [], message: 'non-finite loss', action: 'skipped' };
  const run = { train, evals: [], events: [skip], config: null } as unknown as RunData;
  const { bars } = geometry(buildCharts(run).find((c) => c.id === 'phases')!.svg);
  assert.equal(bars.length, 100);
  // Drawn with a 1 px gap: bar i starts 1 px after bar i-1 ends (0.1 px rounding each side).
  for (let i = 1; i < bars.length; i++) {
    const gap = bars[i]![0] - bars[i - 1]![1];
    assert.ok(Math.abs(gap - 1) <= 0.25, `between the bars of steps ${i * 10} and ${(i + 1) * 10}: a gap of ${gap.toFixed(2)} px`);
  }
});
