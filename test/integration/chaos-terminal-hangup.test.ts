// A terminal that goes away for real: the run's terminal is a pty (util-linux `script`), and
// killing `script` closes it. The kernel sends SIGHUP to the run, and every write to the
// terminal fails (EIO): the run still finishes its step, writes a checkpoint and a `stop` line
// in metrics.jsonl, and leaves no process behind. (The exit status is chaos-sighup's: here the
// shell that would read it is gone with the terminal.) `script` runs the command through $SHELL,
// which may exec it (bash) or stay as its parent (dash, as /bin/sh): the test runs under dash, the
// harder case (the shell dies of the hang-up at once, and the run gets its SIGHUP as the
// terminal's foreground group), and finds the coordinator below whichever shell there is.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
  const env = { ...process.env, SHELL: fs.existsSync('/bin/dash') ? '/bin/dash' : '/bin/sh' };
  const term = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  term.stdout.resume();
  term.stderr.resume();
  const metrics = path.join(runDir, 'metrics.jsonl');
  await waitForStep(metrics, 5);
  const cli = coordinatorBelow(term.pid!);
  assert.ok(cli !== null, 'no coordinator under script');
  const workers = [...workerPids(cli).values()];
  term.kill('SIGKILL'); // the terminal goes away
  await waitFor(() => !isAlive(cli) && workers.every((p) => !isAlive(p)), 30_000, 'the coordinator and its workers to exit');
  const last = readMetrics(metrics).at(-1)!;
  t.diagnostic(JSON.stringify(last));
  assert.equal(last.type, 'stop', `the last metrics line is ${JSON.stringify(last)}`);
  assert.equal(last.message, 'stopped by SIGHUP');
  assert.deepEqual(checkpointSteps(runDir), [last.step]);
});

/** The node process running the CLI among the descendants of `pid` (the shell between them, if any, is not it). */
function coordinatorBelow(pid: number): number | null {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      if (!below.has(r.ppid) || below.has(r.pid)) continue;
      below.add(r.pid);
      grew = true;
    }
  }
  return rows.find((r) => below.has(r.pid) && r.args.startsWith(`${process.execPath} ${BIN} train`))?.pid ?? null;
}
