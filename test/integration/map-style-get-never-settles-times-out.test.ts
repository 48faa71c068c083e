// A map-style get() whose Promise never settles ends the run at reliability.stepTimeout, as a
// stuck worker would: waiting for data is part of the step's deadline. E_DATA names the sample,
// the split, the module file and the seconds waited, exit 2, step 1 kept in a checkpoint whose
// --resume the hint offers, and that resume trains to the end once get() settles. The same with
// get() in the coordinator's thread and in a data thread (whose pool is then ended, not waited for).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, runCliAsync } from '../helpers/chaos.ts';
import { HANGING_SAMPLE, writeHangingRun } from '../helpers/hanging-get.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('get-never-settles');
const TIMEOUT_S = 12; // the run's stepTimeout, which the wait for get() has
// Worker start-up has its own deadline: however long a loaded machine takes to start them, the
// run fails at get(), not in init.
const START_TIMEOUT_S = 120;
const base = ['--simulate', '1', '--backend', 'cpu'];

for (const [name, data] of [
  ['coordinator', {}],
  ['threads', { threads: 1 }],
] as const) {
  test(`get() never settling (${name === 'threads' ? 'in a data thread' : "in the coordinator's thread"}): E_DATA at stepTimeout, exit 2, step 1 kept, --resume works`, async () => {
    const run = writeHangingRun(dir, name, { data, reliability: { stepTimeout: TIMEOUT_S, startTimeout: START_TIMEOUT_S } });
    const r = await runCliAsync(['train', run.config, ...base], { timeoutMs: 180_000 });
    assert.equal(r.code, 2, `exit code\n${r.stdout}\n${r.stderr}`);
    assert.ok(fs.existsSync(run.marker), 'get(5) of epoch 2 was never called');
    const said = new RegExp(
      `error E_DATA: data\\.train: module ${run.module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: sample ${HANGING_SAMPLE}: ` +
        `get\\(${HANGING_SAMPLE}, \\{ epoch: 1, split: 'data\\.train' \\}\\) has not settled after ${TIMEOUT_S} s`,
    );
    assert.match(r.stderr, said);
    const ckpt = path.join(run.runDir, 'checkpoints', 'step-1');
    assert.ok(r.stderr.includes(`the last completed step (1) is in ${ckpt}; continue with --resume`), r.stderr);
    assert.deepEqual(checkpointSteps(run.runDir), [1]);

    fs.rmSync(run.hangFlag); // get(5) settles from now on
    const resumed = await runCliAsync(['train', run.config, ...base, '--resume'], { timeoutMs: 180_000 });
    assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
    assert.match(resumed.stdout, /resuming from .*step-1 at step 1 of 3/);
    assert.ok(fs.existsSync(path.join(run.runDir, 'final', 'model.json')), 'the resumed run saved no model');
  });
}
