// The charts' data sits in report.html as JSON inside a <script> block. A string in it that the
// run wrote (a worker failure's message, a metric's key) could end that block early with
// '</script>' or open a comment with '<!--': every '<' is written as \u003c, and the text parses
// back to the very message.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { linePlot, pageData } from '../helpers/report-page.ts';
import { trainLine } from '../helpers/train-line.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-json-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const MESSAGE = 'worker rank 0 failed: </script><script>alert(1)</script><!-- <b>';

test("a failure message holding '</script>' stays inside the data block and reads back whole", async () => {
  const train = (step: number) => trainLine(step);
  const lines = [train(1), { type: 'failure', step: 2, ranks: [0], message: MESSAGE, action: 'restart' }, train(2)];
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  const page = fs.readFileSync((await report(dir, { line: () => {} })).htmlPath, 'utf8');
  assert.equal((page.match(/<\/script>/g) ?? []).length, 3, 'the data block, uPlot and the page script: each closed once');
  assert.doesNotMatch(page, /<script>alert/);
  const block = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page)![1]!;
  assert.match(block, /\\u003c\/script>\\u003cscript>alert\(1\)\\u003c\/script>\\u003c!-- \\u003cb>/);
  const marks = linePlot(pageData(page), 'loss').marks;
  assert.deepEqual(
    marks.map((m) => m.label),
    [`failure at step 2 (rank 0): ${MESSAGE} -> restart`],
  );
});
