// A monitor that cannot be watched is a user error: exit 2, E_CONFIG naming the key path, a
// hint, no stack trace. Most are found in the config (--set included); eval.top_k on a model
// with no more classes than eval.topK once the workers have built the model, before step 0 and
// before anything is written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('cli-monitor');
const file = writeConfigFile(dir, 'monitor', { ...scenario(dir, 'monitor'), devices: { simulate: 1, backend: 'cpu' } });
const noStack = (text: string) => assert.ok(!/\n\s+at .+:\d+:\d+\)?\n/.test(text) && !/E_INTERNAL/.test(text), text);

test('in the config: a field the eval line lacks, a mode against the monitor, early stopping without evaluations', async () => {
  const cases: Array<[string[], RegExp, RegExp]> = [
    [
      ['--set', 'checkpoint.best.monitor=eval.f1'],
      /error E_CONFIG: checkpoint\.best\.monitor: expected one of 'eval\.loss', 'eval\.accuracy', 'eval\.top_k', 'eval\.mae', got "eval\.f1"/,
      /./,
    ],
    [
      ['--set', 'training.earlyStopping={monitor: eval.accuracy, mode: min}'],
      /error E_CONFIG: training\.earlyStopping\.mode: is 'min', but eval\.accuracy improves upward/,
      /hint: set training\.earlyStopping\.mode: max/,
    ],
    [
      ['--set', 'schedule.name=plateau', '--set', 'eval.every=0'],
      /error E_CONFIG: schedule: schedule 'plateau' acts on evaluations during the run, but eval\.every is 0/,
      /hint: set eval\.every to epoch/,
    ],
    [
      ['--set', 'data.eval=null', '--set', 'checkpoint.best={}'],
      /error E_CONFIG: checkpoint\.best\.monitor: watches eval\.loss, but there is no data\.eval/,
      /hint: set data\.eval/,
    ],
  ];
  for (const [sets, message, hint] of cases) {
    const r = await runCliAsync(['train', file, ...sets]);
    assert.equal(r.code, 2, `${sets.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, hint);
    noStack(r.stdout + r.stderr);
  }
});

test('eval.top_k with 3 classes and eval.topK 5: refused once the model is known, before any step', async () => {
  const r = await runCliAsync(['train', file, '--set', 'training.earlyStopping={monitor: eval.top_k}']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /error E_CONFIG: training\.earlyStopping\.monitor: eval\.top_k is not measured: the model has 3 outputs, not more than eval\.topK \(5\)/,
  );
  assert.match(r.stderr, /hint: lower eval\.topK, or monitor eval\.accuracy/);
  noStack(r.stdout + r.stderr);
  assert.ok(!fs.existsSync(path.join(dir, 'monitor')), 'nothing written');
  const ok = await runCliAsync(['train', file, '--set', 'training.earlyStopping={monitor: eval.top_k}', '--set', 'eval.topK=2', '--set', 'training.epochs=1']);
  assert.equal(ok.code, 0, ok.stderr);
});
