// checkpoint.best keeps runs/<name>/best/: the weights of the evaluation with the best
// monitored value, as Keras's ModelCheckpoint(save_best_only) keeps them: strictly better only,
// so when a later evaluation ties the best, best/ keeps the earlier step. The best step is
// worked out here from the logged eval values; best/ must then hold exactly the weights of the
// checkpoint of that step, and those of a plain-tfjs reference trained for that many steps;
// best.json and a 'best' line in metrics.jsonl name the step. The same on 1 and 2 workers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, referenceTrain, silent, tempDir } from '../helpers/train-fixture.ts';
import { metricsOf, scenario, weightsBin } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('best');
const over = { checkpoint: { every: 'epoch', keep: 100, best: { monitor: 'eval.accuracy' } } };

for (const workers of [2, 1]) {
  test(`best/ holds the weights of the first evaluation with the highest accuracy (${workers} worker${workers > 1 ? 's' : ''})`, async (t) => {
    const cfg = buildConfig(dir, scenario(dir, `best-n${workers}`, over), workers);
    assert.deepEqual(cfg.checkpoint.best, { monitor: 'eval.accuracy', mode: 'max' });
    const r = await train(cfg, silent);
    const m = metricsOf(r.runDir);
    const acc = m.evals.map((l) => l.accuracy as number);
    const top = Math.max(...acc);
    const first = m.evals[acc.indexOf(top)]!.step;
    const ties = m.evals.filter((l) => l.accuracy === top && l.step > first).map((l) => l.step);
    t.diagnostic(
      `accuracy by step: ${m.evals.map((l) => `${l.step}:${JSON.stringify(l.accuracy)}`).join(' ')}; best ${top} first at ${first}, tied at ${ties.join(', ')}`,
    );
    assert.ok(ties.length > 0, 'the run must tie its best accuracy later, or the test would not tell ties apart');
    assert.ok(first < r.steps, 'the best is not the last step');

    const bestDir = path.join(r.runDir, 'best');
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(bestDir, 'best.json'), 'utf8')), {
      step: first,
      epoch: first / 5 - 1,
      monitor: 'eval.accuracy',
      mode: 'max',
      value: top,
    });
    assert.deepEqual(
      fs.readFileSync(path.join(bestDir, 'weights.bin')),
      fs.readFileSync(path.join(r.runDir, 'checkpoints', `step-${first}`, 'weights.bin')),
      'best/ is the checkpoint of the best step',
    );
    assert.notDeepEqual(fs.readFileSync(path.join(bestDir, 'weights.bin')), fs.readFileSync(path.join(r.runDir, 'final', 'weights.bin')));
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(bestDir, 'model.json'), 'utf8')).modelTopology,
      JSON.parse(fs.readFileSync(path.join(r.runDir, 'final', 'model.json'), 'utf8')).modelTopology,
    );
    const bestLines = m.of('best');
    assert.equal(bestLines.at(-1)!.step, first);
    assert.ok(
      bestLines.every((l, i) => i === 0 || (l.value as number) > (bestLines[i - 1]!.value as number)),
      'each best line beats the one before',
    );
    assert.deepEqual(r.best, { step: first, value: top, monitor: 'eval.accuracy' });

    // Independently: plain tfjs trained for `first` steps on the same batches. (The MLP has no
    // non-trainable weights, so weights.bin is the flat vector in the reference's order.)
    const ref = await referenceTrain(buildConfig(dir, { ...scenario(dir, 'ref', over), training: { batchSize: 8, steps: first, seed: 3 } }, 1));
    assertWeightsClose(t, weightsBin(bestDir), ref.weights, `best/ against the reference after ${first} steps`);
    ref.model.dispose();
  });
}

test('1 and 2 workers choose the same best step', () => {
  const step = (n: number) => JSON.parse(fs.readFileSync(path.join(dir, `best-n${n}`, 'best', 'best.json'), 'utf8')).step;
  assert.equal(step(1), step(2));
});
