// A resumed run logs again the steps after its checkpoint: metrics.jsonl then has step 20 twice.
// uPlot wants each step once and in order, so a chart's series keeps one value a step: the one
// logged last (the run that went on), not the one it replaced.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { seriesValues } from '../helpers/report-page.ts';
import { trainLine } from '../helpers/train-line.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-repeat-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a step logged twice (a resume) is drawn once, with its last value', async () => {
  const train = (step: number, loss: number) => trainLine(step, { loss });
  const lines = [train(10, 2), train(20, 1.5), train(30, 1.2), train(20, 1.4), train(30, 1.1), train(40, 1)];
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  const page = fs.readFileSync((await report(dir, { line: () => {} })).htmlPath, 'utf8');
  assert.deepEqual(
    [...seriesValues(page, 'loss', 'train loss')],
    [
      [10, 2],
      [20, 1.4],
      [30, 1.1],
      [40, 1],
    ],
  );
});
