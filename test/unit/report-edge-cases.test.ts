// `mgpu-train report` on the runs that are not the happy path: no eval, one line, NaN/Infinity
// losses, a torn last line, an empty or missing metrics.jsonl.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { formatError, MgpuError } from '../../src/shared/errors.ts';
import { report } from '../../src/report/index.ts';
import { readRun } from '../../src/report/read-run.ts';
import { summarize, summaryText } from '../../src/report/summary.ts';
import { barPlot, figureOf, linePlot, pageData, seriesValues, withoutScripts } from '../helpers/report-page.ts';
import { trainLine } from '../helpers/train-line.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function runDir(metrics: string | null, config = 'name: edge\ndevices:\n  gpus: all\n  simulate: 2\n  backend: cpu\n'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-edge-'));
  dirs.push(dir);
  if (metrics !== null) fs.writeFileSync(path.join(dir, 'metrics.jsonl'), metrics);
  fs.writeFileSync(path.join(dir, 'config.yaml'), config);
  return dir;
}

const line = (step: number, loss: number | string = 1 / step, extra: object = {}) =>
  JSON.stringify(trainLine(step, { loss, samples_per_sec: 100 * step, ...extra }));
const lines = (...ls: string[]) => ls.map((l) => l + '\n').join('');

async function run(dir: string) {
  const out: string[] = [];
  const { htmlPath } = await report(dir, { line: (t) => out.push(t) });
  return { text: out.join('\n'), page: fs.readFileSync(htmlPath, 'utf8') };
}

/** Every value in the data block a finite number or null; no NaN/Infinity in an attribute. */
function assertFiniteData(page: string): void {
  const data = pageData(page);
  for (const { id, plot } of data.charts) {
    const values = plot.kind === 'line' ? plot.series.flatMap((s) => s.y) : plot.layers.flatMap((l) => l.values);
    for (const v of values) assert.ok(v === null || Number.isFinite(v), `${id}: ${v}`);
  }
  assert.doesNotMatch(withoutScripts(page).replace(/<pre>[\s\S]*?<\/pre>/, ''), /="[^"]*(NaN|Infinity|undefined)/, 'NaN/Infinity in an attribute');
}

const plots = (page: string) => (page.match(/<div class="plot"|<p class="empty">/g) ?? []).length;

test('a run with no eval lines: the accuracy chart says so, the summary says none', async () => {
  const { text, page } = await run(runDir(lines(line(10), line(20), line(30))));
  assert.match(text, /eval +none in this run/);
  assert.equal(plots(page), 6);
  assert.match(figureOf(page, 'accuracy'), /<p class="empty">no eval in this run/);
  assert.deepEqual(
    linePlot(page, 'loss').series.map((x) => x.name),
    ['train loss'],
    'no eval legend entry on the loss chart',
  );
  assertFiniteData(page);
});

test('a single train line: a value to show as a point, every chart drawn', async () => {
  const { text, page } = await run(runDir(lines(line(7, 2.5))));
  assert.match(text, /steps +7, 1 epoch/);
  assert.match(text, /train loss +final 2\.5000 \(step 7\), best 2\.5000 \(step 7\)/);
  assert.match(text, /samples\/s +700 \(median over 1 line\)/);
  assert.match(text, /time per step \(mean over 7 steps\)/);
  assert.equal(plots(page), 6);
  assertFiniteData(page);
  assert.deepEqual([...seriesValues(page, 'loss', 'train loss')], [[7, 2.5]], 'the one value, drawn as a point by the page');
  assert.deepEqual(barPlot(page).spans, [[0, 7]], 'one bar for the one line: steps 1-7');
});

test('NaN and Infinity losses (null from JSON.stringify, bare tokens from other writers) are left out and reported', async () => {
  const metrics = lines(
    line(10, 2.0),
    line(20, 'NaN').replace('"NaN"', 'null'), // what JSON.stringify(NaN) writes
    line(30, 1.0),
    line(40, 'x').replace('"x"', 'NaN'), // Python's json.dumps
    line(50, 'x').replace('"x"', 'Infinity'),
    line(60, 0.5, { grad_norm: '-Infinity' }).replace('"-Infinity"', '-Infinity'),
    line(70, 0.4),
  );
  const dir = runDir(metrics);
  const data = await readRun(dir);
  assert.equal(data.train.length, 7, 'no line is dropped for a NaN');
  assert.deepEqual(data.unreadable, []);
  assert.ok(Number.isNaN(data.train[1]!.loss));
  assert.ok(Number.isNaN(data.train[3]!.loss));
  assert.equal(data.train[4]!.loss, Infinity);
  assert.equal(data.train[5]!.grad_norm, -Infinity);
  const s = summarize(data);
  assert.deepEqual(s.nonFiniteLossSteps, [20, 40, 50]);
  assert.deepEqual(s.trainLoss.best, { step: 70, value: 0.4 });
  const { text, page } = await run(dir);
  assert.match(text, /non-finite loss +3 line\(s\), steps 20, 40, 50; left out of the charts/);
  assert.match(page, /3 training loss values are NaN or infinite and left out \(steps 20, 40, 50\)/);
  assert.match(page, /1 gradient norm value is infinite and left out \(step 60\)/);
  assert.match(figureOf(page, 'loss'), /NaN\/Inf, left out \(3 steps\)/, 'legend entry for the marks');
  assertFiniteData(page);
  // The loss line breaks at each left-out value (null: a gap): 10 | 30 | 60-70.
  assert.deepEqual(
    [...seriesValues(page, 'loss', 'train loss')],
    [
      [10, 2],
      [20, null],
      [30, 1],
      [40, null],
      [50, null],
      [60, 0.5],
      [70, 0.4],
    ],
  );
  assert.deepEqual(
    linePlot(page, 'loss')
      .marks.filter((m) => m.color === '#dc2626')
      .map((m) => m.label),
    ['step 20: train loss NaN (left out)', 'step 40: train loss NaN (left out)', 'step 50: train loss infinite (left out)'],
    'a red mark at each left-out step',
  );
});

test('every loss non-finite: the chart says so instead of drawing nothing', async () => {
  const { page } = await run(runDir(lines(line(10, 'x').replace('"x"', 'null'), line(20, 'x').replace('"x"', 'null'))));
  assert.match(figureOf(page, 'loss'), /<p class="empty">every value is NaN or infinite/);
  assertFiniteData(page);
});

test('a torn last line is ignored, and said so', async () => {
  const dir = runDir(lines(line(10), line(20)) + line(30).slice(0, 40));
  const data = await readRun(dir);
  assert.equal(data.train.length, 2);
  assert.equal(data.unreadable.length, 1);
  assert.equal(data.unreadable[0]!.torn, true);
  const { text, page } = await run(dir);
  assert.match(text, /steps +20,/);
  assert.match(text, /ignored lines +a torn last line/);
  assert.match(page, /The last line of metrics.jsonl is torn/);
});

test('a malformed line in the middle is ignored too, with its line number', async () => {
  const dir = runDir(lines(line(10), 'garbage {', line(20), JSON.stringify({ type: 'mystery', step: 3 })));
  const data = await readRun(dir);
  assert.equal(data.train.length, 2);
  assert.deepEqual(
    data.unreadable.map((u) => [u.line, u.torn]),
    [
      [2, false],
      [4, false],
    ],
  );
  const { text, page } = await run(dir);
  assert.match(text, /ignored lines +2 malformed lines/);
  assert.match(page, /Line 2 of metrics.jsonl is not a metrics line/);
});

async function usageError(dir: string): Promise<MgpuError> {
  const err = await report(dir, { line: () => {} }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof MgpuError, `an MgpuError, got ${String(err)}`);
  assert.equal(err.code, 'E_USAGE');
  assert.equal(err.exitCode, 2);
  return err;
}

test('a missing metrics.jsonl, or no directory at all: E_USAGE naming the directory as given', async () => {
  const dir = runDir(null);
  const rel = path.relative(process.cwd(), dir);
  const err = await usageError(rel);
  assert.equal(err.message, `${rel} has no metrics.jsonl — is it a run directory?`);
  assert.match(formatError(err), new RegExp(`^error E_USAGE: ${rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has no metrics\\.jsonl — is it a run directory\\?`));
  const gone = await usageError(path.join(dir, 'nope') + '/');
  assert.equal(gone.message, `${path.join(dir, 'nope')} has no metrics.jsonl — is it a run directory?`);
  assert.equal(fs.existsSync(path.join(dir, 'report.html')), false, 'nothing written');
});

test('an empty metrics.jsonl (or only blank lines): the same E_USAGE, with a hint that it is empty', async () => {
  for (const content of ['', '\n\n']) {
    const dir = runDir(content);
    const err = await usageError(dir);
    assert.equal(err.message, `${dir} has no metrics.jsonl — is it a run directory?`);
    assert.match(err.hint!, /is empty/);
  }
  const torn = await usageError(runDir(line(5).slice(0, 30)));
  assert.match(torn.hint!, /no readable metrics line/);
});

test('a regression run (accuracy null): the eval chart shows the mean absolute error', async () => {
  const ev = (step: number, mae: number) =>
    JSON.stringify({ type: 'eval', step, epoch: 0, samples: 100, loss: mae * 2, accuracy: null, top_k: null, k: 5, mae });
  const { text, page } = await run(runDir(lines(line(10), ev(10, 0.4), line(20), ev(20, 0.3))));
  assert.match(text, /eval MAE +last 0\.3000 \(step 20\), also the best/);
  assert.doesNotMatch(text, /eval accuracy/);
  assert.match(page, /Eval mean absolute error/);
  assertFiniteData(page);
});

test('events without train lines (a run that failed at its first step): still a report', async () => {
  const fail = JSON.stringify({ type: 'failure', step: 0, ranks: [1], message: 'worker rank 1 failed in compute: OOM', action: 'restart' });
  const s = summarize(await readRun(runDir(lines(fail))));
  assert.equal(s.trainLines, 0);
  assert.equal(s.phaseMs, null);
  assert.match(summaryText(s).join('\n'), /train loss +no training line/);
  const { page } = await run(runDir(lines(fail)));
  assert.match(page, /no training line in metrics.jsonl/);
  assert.equal(plots(page), 6);
});
