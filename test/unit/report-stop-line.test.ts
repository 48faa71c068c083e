// A stop the library API asked for is a 'stop' line in metrics.jsonl: the report reads it as an
// event (not an unreadable line) and marks it on the loss chart with its reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCharts } from '../../src/report/charts.ts';
import { parseMetrics } from '../../src/report/read-run.ts';
import { trainLine } from '../helpers/train-line.ts';

test("a 'stop' line is an event, marked on the loss chart with its reason", () => {
  const train = (step: number) => JSON.stringify(trainLine(step));
  const stop = JSON.stringify({ type: 'stop', step: 2, ranks: [], message: "stopped by onStepEnd (it returned 'stop')", action: 'checkpoint step-2' });
  const parsed = parseMetrics([train(1), train(2), stop].join('\n') + '\n');
  assert.deepEqual(parsed.unreadable, []);
  assert.deepEqual(parsed.events, [{ type: 'stop', step: 2, ranks: [], message: "stopped by onStepEnd (it returned 'stop')", action: 'checkpoint step-2' }]);
  const charts = buildCharts({
    ...parsed,
    runDir: '/r',
    name: 'r',
    config: null,
    trainerState: null,
    checkpoints: [],
    finalModel: false,
    finalEmaModel: false,
  } as never);
  const loss = charts.find((c) => c.id === 'loss')!.plot;
  assert.equal(loss.kind, 'line');
  assert.deepEqual(loss.marks, [{ x: 2, color: '#64748b', label: "stopped at step 2: stopped by onStepEnd (it returned 'stop') -> checkpoint step-2" }]);
  assert.deepEqual(loss.markLegend, [{ name: 'stop asked for', color: '#64748b' }]);
});
