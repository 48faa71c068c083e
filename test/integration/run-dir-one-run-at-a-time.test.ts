// Two runs into one run directory at once: the second is refused while the first runs (exit 2,
// E_RUN_LOCKED naming the first's pid and host), even with --overwrite, which would otherwise
// remove the files the first is writing; the first runs on untouched, and its lock goes when
// it is stopped by Ctrl-C.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { lastTrainStep, runCliAsync, startCli, waitForRunStep } from '../helpers/chaos.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';

test('a second run into a directory in use is refused while the first runs', async () => {
  const { runDir, config } = tinyRun('one-at-a-time', { training: { batchSize: 8, steps: 100_000 }, log: { every: 1 }, checkpoint: { every: 1_000_000 } });
  const first = startCli(['train', config]);
  try {
    const metrics = path.join(runDir, 'metrics.jsonl');
    await waitForRunStep(first.done, metrics, 2);
    const lock = JSON.parse(fs.readFileSync(path.join(runDir, '.lock'), 'utf8')) as { pid: number; host: string };
    assert.deepEqual([lock.pid, lock.host], [first.child.pid, os.hostname()]);

    const second = await runCliAsync(['train', config, '--overwrite']);
    assert.equal(second.code, 2, second.stdout + second.stderr);
    assert.match(
      second.stderr,
      new RegExp(
        `^error E_RUN_LOCKED: another run is using ${runDir}: pid ${first.child.pid} on ${os.hostname()}, started [^\\n]+\\n  hint: wait for that run to end`,
        'm',
      ),
    );
    assert.doesNotMatch(second.stdout, /--overwrite: removed/);
    await waitForRunStep(first.done, metrics, lastTrainStep(metrics) + 2); // the first run goes on
    first.child.kill('SIGINT');
    const r = await first.done;
    assert.equal(r.code, 130, r.stderr);
    assert.ok(!fs.existsSync(path.join(runDir, '.lock')), 'the lock outlived the run');
  } finally {
    first.child.kill('SIGKILL');
  }
});
