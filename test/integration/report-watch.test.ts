// `mgpu-train report <run> --watch` while the run trains: the page is rewritten as metrics.jsonl
// grows (each version reloading itself in the browser), and the watch ends on its own when the
// run has its final model, leaving a page that no longer reloads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { startCli, waitFor, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('report --watch follows a run to its end', async () => {
  const dir = tempDir('report-watch');
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 100, 'onehot', 1) },
    training: { batchSize: 10, steps: 4000 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    log: { every: 20 },
    devices: { simulate: 1, backend: 'cpu' },
    runDir,
  });
  const run = startCli(['train', file]);
  const metrics = path.join(runDir, 'metrics.jsonl');
  await waitFor(() => fs.existsSync(metrics) && fs.statSync(metrics).size > 0, 60_000, 'the first metrics line');
  const watch = startCli(['report', runDir, '--watch']);
  const html = path.join(runDir, 'report.html');
  await waitFor(() => fs.existsSync(html), 30_000, 'the first page');
  assert.match(fs.readFileSync(html, 'utf8'), /<meta http-equiv="refresh" content="2">/);
  const first = fs.statSync(html).mtimeMs;
  await waitFor(() => fs.statSync(html).mtimeMs > first, 30_000, 'a rewritten page');
  const [t, w] = await Promise.all([run.done, watch.done]);
  assert.equal(t.code, 0, t.stderr);
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stdout, /watching .*metrics\.jsonl/);
  assert.match(w.stdout, /the run has finished: .*report\.html/);
  const last = fs.readFileSync(html, 'utf8');
  assert.doesNotMatch(last, /http-equiv="refresh"/, 'the final page still reloads');
  assert.match(last, /finished/);
});
