// --help wraps at the terminal's width (yargs' own default stops at 80 columns on a wider one),
// or $COLUMNS when stdout is no terminal, and shows training on and predicting an image folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/run-cli.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const widest = (text: string) => Math.max(...text.split(/\r?\n/).map((l) => l.length));

test('--help on a terminal of 150 columns uses them', (t) => {
  // A pseudo-terminal 150 columns wide, made by Python's pty (its stdout is the terminal).
  const py = `import os, pty, sys, fcntl, termios, struct
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack('HHHH', 50, 150, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:])
out = b''
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode())`;
  const r = spawnSync('python3', ['-c', py, process.execPath, BIN, '--help'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '' }, timeout: 60_000 });
  if (r.error) {
    t.skip(`no python3 to make a terminal: ${r.error.message}`);
    return;
  }
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /mgpu-train train <config>/);
  const w = widest(r.stdout);
  assert.ok(w > 80 && w <= 150, `widest line ${w} columns`);
});

test('--help into a pipe wraps at $COLUMNS, else at 80', () => {
  const wide = runCli(['--help'], { env: { ...process.env, COLUMNS: '160' } });
  assert.equal(wide.code, 0);
  const w = widest(wide.stdout);
  assert.ok(w > 80 && w <= 160, `widest line ${w} columns`);
  const { COLUMNS: _, ...env } = process.env;
  const narrow = runCli(['--help'], { env });
  assert.ok(widest(narrow.stdout.split('Examples:')[0]!) <= 80);
});

test('--help shows an image folder trained on and predicted', () => {
  const r = runCli(['--help'], { env: { ...process.env, COLUMNS: '200' } });
  assert.match(r.stdout, /^ {2}mgpu-train train examples\/digits-folder\/experiment\.yaml .*class folders of images$/m);
  assert.match(r.stdout, /^ {2}mgpu-train predict .* --input photos\/ --output labels\.csv .*path, class and score$/m);
});
