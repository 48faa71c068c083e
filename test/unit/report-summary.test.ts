// `mgpu-train report`: the numbers of the summary, from a metrics.jsonl written here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { readRun } from '../../src/report/read-run.ts';
import { phaseRows, summarize, summaryText } from '../../src/report/summary.ts';

const train = (
  step: number,
  epoch: number,
  loss: number,
  sps: number,
  t: { cmax: number; cmin: number; sync: number; data: number; step: number },
  lr = 0.01,
) => ({
  type: 'train',
  step,
  epoch,
  loss,
  lr,
  samples_per_sec: sps,
  compute_max_ms: t.cmax,
  compute_min_ms: t.cmin,
  sync_ms: t.sync,
  data_ms: t.data,
  step_ms: t.step,
  grad_norm: 1 / step,
});

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function writeRun(lines: object[], opts: { config?: string; checkpoints?: string[]; final?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-summary-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  if (opts.config !== undefined) fs.writeFileSync(path.join(dir, 'config.yaml'), opts.config);
  for (const c of opts.checkpoints ?? []) fs.mkdirSync(path.join(dir, 'checkpoints', c), { recursive: true });
  if (opts.final) {
    fs.mkdirSync(path.join(dir, 'final'));
    fs.writeFileSync(path.join(dir, 'final', 'model.json'), '{}');
  }
  return dir;
}

const CONFIG = '# resolved\nname: synth\ntraining:\n  batchSize: 64\ndevices:\n  gpus: all\n  simulate: 2\n  backend: cpu\n  shmDir: /dev/shm\n';
const LINES = [
  train(10, 0, 2.0, 100, { cmax: 10, cmin: 8, sync: 2, data: 1, step: 15 }),
  { type: 'failure', step: 15, ranks: [1], message: 'worker rank 1 (GPU 1) failed in compute: boom', action: 'restart' },
  train(20, 0, 1.0, 300, { cmax: 20, cmin: 10, sync: 4, data: 2, step: 30 }),
  { type: 'eval', step: 20, epoch: 0, samples: 500, loss: 1.2, accuracy: 0.5, top_k: 0.8, k: 3, mae: 0.2 },
  { type: 'skip', step: 24, ranks: [0], message: 'step 24: non-finite loss or gradient from rank 0', action: 'skipped' },
  train(30, 1, 1.5, 200, { cmax: 30, cmin: 20, sync: 6, data: 3, step: 45 }),
  { type: 'eval', step: 30, epoch: 1, samples: 500, loss: 1.3, accuracy: 0.6, top_k: 0.75, k: 3, mae: 0.1 },
];

test('summary: steps, epochs, losses, evals, throughput, events, checkpoints, final model', async () => {
  const dir = writeRun(LINES, { config: CONFIG, checkpoints: ['step-10', 'step-30', 'step-20.tmp-4242'], final: true });
  const s = summarize(await readRun(dir));
  assert.equal(s.name, 'synth');
  assert.equal(s.steps, 30);
  assert.equal(s.epochs, 2); // epochs 0 and 1 (0-based in the log)
  assert.equal(s.batchSize, 64);
  assert.match(s.workers!, /^2 \(simulated/);
  assert.equal(s.backend, 'cpu');
  assert.deepEqual(s.trainLoss, { last: { step: 30, value: 1.5 }, best: { step: 20, value: 1.0 } });
  assert.equal(s.evalCount, 2);
  assert.equal(s.k, 3);
  assert.deepEqual(s.evalLoss, { last: { step: 30, value: 1.3 }, best: { step: 20, value: 1.2 } });
  assert.deepEqual(s.evalAccuracy, { last: { step: 30, value: 0.6 }, best: { step: 30, value: 0.6 } });
  assert.deepEqual(s.evalTopK, { last: { step: 30, value: 0.75 }, best: { step: 20, value: 0.8 } });
  assert.equal(s.medianSamplesPerSec, 200);
  assert.deepEqual(s.skippedSteps, [24]);
  assert.deepEqual(s.failures, [{ step: 15, ranks: [1], action: 'restart', message: 'worker rank 1 (GPU 1) failed in compute: boom' }]);
  assert.deepEqual(s.checkpoints, [10, 30]); // the .tmp directory is not a checkpoint
  assert.equal(s.finalModel, path.join(dir, 'final', 'model.json'));
  assert.equal(s.unreadableLines, 0);
});

test('summary: the phase means are per step, weighted by the steps each line covers', async () => {
  const dir = writeRun(LINES, { config: CONFIG });
  const s = summarize(await readRun(dir));
  // Lines cover 10, 10 and 9 steps (step 25, index 24, was skipped).
  const w = [10, 10, 9];
  const mean = (xs: number[]) => xs.reduce((a, x, i) => a + x * w[i]!, 0) / 29;
  assert.equal(s.phaseSteps, 29);
  const ms = s.phaseMs!;
  assert.ok(Math.abs(ms.compute_max - mean([10, 20, 30])) < 1e-9);
  assert.ok(Math.abs(ms.compute_min - mean([8, 10, 20])) < 1e-9);
  assert.ok(Math.abs(ms.sync - mean([2, 4, 6])) < 1e-9);
  assert.ok(Math.abs(ms.data - mean([1, 2, 3])) < 1e-9);
  assert.ok(Math.abs(ms.step - mean([15, 30, 45])) < 1e-9);
  // other = step - compute max - sync - data = 2, 4, 6
  assert.ok(Math.abs(ms.other - mean([2, 4, 6])) < 1e-9);
  const rows = phaseRows(s);
  const additive = rows.filter((r) => r.additive).reduce((a, r) => a + r.pct, 0);
  assert.ok(Math.abs(additive - 1) < 1e-9, `compute max + sync + data + other is the step (${additive})`);
  assert.ok(Math.abs(rows.find((r) => r.phase === 'sync')!.pct - ms.sync / ms.step) < 1e-12);
});

test('summary text: the table the terminal shows', async () => {
  const dir = writeRun(LINES, { config: CONFIG, checkpoints: ['step-30'], final: true });
  const text = summaryText(summarize(await readRun(dir))).join('\n');
  assert.match(text, /^ {2}run +synth \(/m);
  assert.match(text, /steps +30, 2 epochs, global batch 64/);
  assert.match(text, /workers +2 \(simulated GPUs on the CPU\)/);
  assert.match(text, /backend +cpu/);
  assert.match(text, /train loss +final 1\.5000 \(step 30\), best 1\.0000 \(step 20\)/);
  assert.match(text, /eval loss +last 1\.3000 \(step 30\), best 1\.2000 \(step 20\); 2 evals/);
  assert.match(text, /eval accuracy +last 60\.00% \(step 30\), also the best/);
  assert.match(text, /eval top-3 +last 75\.00% \(step 30\), best 80\.00% \(step 20\)/);
  assert.match(text, /samples\/s +200 \(median over 3 lines\)/);
  assert.match(text, /skipped steps +1: 24/);
  assert.match(text, /worker failures +1: step 15 rank 1 \(restart\)/);
  assert.match(text, /checkpoints +1: step-30/);
  assert.match(text, /final model +.*final\/model\.json/);
  // phase block: ms and % of the step; mean step = (150 + 300 + 405) / 29
  assert.match(text, /time per step \(mean over 29 steps\)/);
  assert.match(text, /sync \(reduce \+ update\) +3\.93 +13\.3%/);
  assert.match(text, /step +29\.48 +100%/);
});

test('report(): prints the table and writes report.html in the run directory', async () => {
  const dir = writeRun(LINES, { config: CONFIG });
  const lines: string[] = [];
  const r = await report(dir, { line: (t) => lines.push(t) });
  assert.equal(r.htmlPath, path.resolve(dir, 'report.html'));
  assert.ok(fs.statSync(r.htmlPath).size > 1000);
  assert.ok(lines.some((l) => /train loss +final 1\.5000/.test(l)));
  assert.equal(lines.at(-1), `report written to ${path.join(dir, 'report.html')}`);
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.includes('.tmp')),
    [],
  );
});

test('summary: no config.yaml: workers and backend are not known, and the name is the directory', async () => {
  const dir = writeRun(LINES.filter((l) => (l as { type: string }).type === 'train'));
  const s = summarize(await readRun(dir));
  assert.equal(s.name, path.basename(dir));
  assert.equal(s.workers, null);
  assert.equal(s.backend, null);
  assert.equal(s.finalModel, null);
  assert.match(summaryText(s).join('\n'), /workers +not recorded/);
});

test('summary: GPUs listed in the config, and the worker count of the newest checkpoint', async () => {
  const dir = writeRun(LINES, { config: 'name: g\ndevices:\n  gpus: [0, 2, 3]\n  simulate: 0\n  backend: tfjs-node-gpu\n', checkpoints: ['step-30'] });
  let s = summarize(await readRun(dir));
  assert.equal(s.workers, '3 (GPUs 0, 2, 3)');
  assert.equal(s.backend, 'tfjs-node-gpu');
  fs.writeFileSync(path.join(dir, 'checkpoints', 'step-30', 'trainer-state.json'), JSON.stringify({ workers: 2, batchSize: 96 }));
  fs.writeFileSync(path.join(dir, 'config.yaml'), 'name: g\ndevices:\n  gpus: all\n  simulate: 0\n  backend: auto\n');
  s = summarize(await readRun(dir));
  assert.equal(s.workers, '2 (all visible GPUs)');
  assert.equal(s.batchSize, 96);
  assert.match(s.backend!, /^auto/);
});
