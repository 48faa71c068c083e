// On a terminal the progress is a live bar; under Slurm or an MPI launcher (whose ranks get a
// pseudo-terminal from Open MPI, and whose output goes to a job log) it is plain lines, with no
// carriage return or escape code, unless `--progress bar` asks for the bar.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const dir = tempDir('progress-plain');
const file = writeConfigFile(dir, 'exp', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 24, 'onehot', 3) },
  training: { batchSize: 8, steps: 3 },
  optimizer: { name: 'sgd' },
  log: { every: 1 },
});

/** A run on a pseudo-terminal (util-linux `script`): what the terminal showed. */
function onTerminal(name: string, flags: string[], env: NodeJS.ProcessEnv): string {
  const command = [process.execPath, BIN, 'train', file, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, name), ...flags].join(' ');
  const shell = fs.existsSync('/bin/dash') ? '/bin/dash' : '/bin/sh';
  const r = spawnSync('script', ['-qfec', command, '/dev/null'], { encoding: 'utf8', env: { ...process.env, SHELL: shell, ...env }, timeout: 120_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout;
}
const ESC = String.fromCharCode(27);
const BAR = new RegExp(`\\r${ESC}\\[2K\\[=*>? *\\] 2/3 `);

test('a terminal: the bar; under Slurm: plain lines; under Slurm with --progress bar: the bar', { skip: !hasScript && 'no `script` (util-linux) here' }, () => {
  const bare = { SLURM_JOB_ID: undefined, OMPI_COMM_WORLD_SIZE: undefined };
  assert.match(onTerminal('tty', [], bare), BAR);
  const slurm = onTerminal('slurm', [], { SLURM_JOB_ID: '42' });
  // (The terminal itself ends each line with \r\n.)
  assert.doesNotMatch(slurm, /\r(?!\n)/, JSON.stringify(slurm.slice(0, 400)));
  assert.ok(!slurm.includes(ESC), 'an escape code in the plain lines');
  assert.match(slurm, /^step 2\/3 /m);
  assert.match(onTerminal('slurm-bar', ['--progress', 'bar'], { SLURM_JOB_ID: '42' }), BAR);
});
