// The metrics are printed in the eval output of `train` and of `mgpu-train eval`, and the two
// agree: evaluating the run's final checkpoint on 2 workers gives the values the run's final
// evaluation gave on 3 (counts and AUC to the bit). Without metrics, `mgpu-train eval` prints
// the shipped lines and nothing more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runEval } from '../../src/coordinator/inference.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('metrics-output');

function capture(): Progress & { lines: string[] } {
  const lines: string[] = [];
  return { lines, step() {}, line: (text: string) => lines.push(text), done() {} };
}

test("train and mgpu-train eval print the metrics; eval on 2 workers repeats the run's final figures", async () => {
  const raw = {
    name: 'metrics-output',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 711), eval: writeDataset(dir, 'eval', 37, 'onehot', 712) },
    training: { batchSize: 10, epochs: 1, seed: 4 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    eval: { batchSize: 8, topK: 2 },
    metrics: ['accuracy', 'topK', { name: 'recall', average: 'macro' }, { name: 'f1', average: 'micro' }, 'auc', 'rmse'],
  };
  const out = capture();
  const r = await train(buildConfig(dir, raw, 3), out);
  const m = r.eval!.metrics!;
  const evalLine = out.lines.find((l) => l.startsWith('eval @ step'))!;
  const pct = (v: number) => `${(100 * v).toFixed(2)}%`;
  assert.equal(
    evalLine,
    `eval @ step 3: loss ${r.eval!.loss.toFixed(4)} accuracy ${pct(m.accuracy!)} top-2 ${pct(m.top_k!)} recall_macro ${m.recall_macro!.toFixed(4)} ` +
      `f1_micro ${m.f1_micro!.toFixed(4)} auc ${m.auc!.toFixed(4)} rmse ${m.rmse!.toFixed(4)} (37 samples)`,
  );

  // mgpu-train eval on the final checkpoint, with 2 workers instead of 3.
  const cfg2 = buildConfig(dir, raw, 2);
  const printed = capture();
  const e = await runEval(cfg2, printed, { dir: r.runDir, ema: false });
  for (const key of ['accuracy', 'top_k', 'recall_macro', 'f1_micro', 'auc']) assert.equal(e.metrics![key], m[key], `${key} on 2 workers vs the run's on 3`);
  assert.ok(Math.abs(e.metrics!.rmse! - m.rmse!) < 1e-6, `rmse ${e.metrics!.rmse} vs ${m.rmse}`);
  const body = printed.lines.slice(printed.lines.findIndex((l) => l.startsWith('evaluated ')) + 1);
  assert.deepEqual(body, [
    '  samples       37',
    `  loss          ${e.loss.toFixed(6)}`,
    `  accuracy      ${pct(m.accuracy!)}`,
    `  top-2         ${pct(m.top_k!)}`,
    `  recall_macro  ${e.metrics!.recall_macro!.toFixed(6)}`,
    `  f1_micro      ${e.metrics!.f1_micro!.toFixed(6)}`,
    `  auc           ${e.metrics!.auc!.toFixed(6)}`,
    `  rmse          ${e.metrics!.rmse!.toFixed(6)}`,
  ]);

  // Without metrics: the shipped output, unchanged.
  const plain = capture();
  const p = await runEval(buildConfig(dir, { ...raw, metrics: undefined }, 2), plain, { dir: r.runDir, ema: false });
  assert.equal(p.metrics, null);
  assert.deepEqual(plain.lines.slice(plain.lines.findIndex((l) => l.startsWith('evaluated ')) + 1), [
    '  samples   37',
    `  loss      ${p.loss.toFixed(6)}`,
    `  accuracy  ${pct(p.accuracy!)}`,
    `  top-2     ${pct(p.topK!)}`,
    `  mae       ${p.mae.toFixed(6)}`,
  ]);
});
