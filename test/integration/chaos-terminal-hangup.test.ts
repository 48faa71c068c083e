// A terminal that goes away for real: the run's terminal is a pty (util-linux `script`), and
// killing `script` closes it. The kernel sends SIGHUP to the run, and every write to the
// terminal fails (EIO): the run still finishes its step, writes a checkpoint and a `stop` line
// in metrics.jsonl, and leaves no process behind. (The exit status is chaos-sighup's: here the
// shell that would read it is gone with the terminal.)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkpointSteps, isAlive, readMetrics, waitFor, waitForStep, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

test('the terminal closes mid-run: a checkpoint and a stop line, no process left', { skip: !hasScript && 'no `script` (util-linux) here' }, async (t) => {
  const dir = tempDir('terminal-hangup');
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 60, 'onehot', 9) },
    training: { batchSize: 12, steps: 1_000_000 },
    optimizer: { name: 'sgd' },
    log: { every: 1 },
  });
  const command = [process.execPath, BIN, 'train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir].join(' ');
  const term = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  term.stdout.resume();
  term.stderr.resume();
  const metrics = path.join(runDir, 'metrics.jsonl');
  await waitForStep(metrics, 5);
  const cli = Number(
    spawnSync('pgrep', ['-P', String(term.pid), '-f', 'mgpu-train'], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0],
  );
  assert.ok(cli > 0, 'no coordinator under script');
  const workers = [...workerPids(cli).values()];
  term.kill('SIGKILL'); // the terminal goes away
  await waitFor(() => !isAlive(cli) && workers.every((p) => !isAlive(p)), 30_000, 'the coordinator and its workers to exit');
  const last = readMetrics(metrics).at(-1)!;
  t.diagnostic(JSON.stringify(last));
  assert.equal(last.type, 'stop', `the last metrics line is ${JSON.stringify(last)}`);
  assert.equal(last.message, 'stopped by SIGHUP');
  assert.deepEqual(checkpointSteps(runDir), [last.step]);
});
