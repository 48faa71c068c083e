// Ctrl-C (SIGINT) during `mgpu-train shards`, after it has closed some shards, leaves nothing
// behind: no shard and no hidden `.partial` file; it says so and exits 130. The run is held
// midway by an image that is a FIFO (reading it waits for a writer).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

test('SIGINT after 3 shards: exit 130, the out dir empty', async () => {
  const dir = tempDir('shards-sigint');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const fifo = path.join(digits.dir, '9', '99999.png'); // the last image in the folder's order
  fs.mkdirSync(path.dirname(fifo), { recursive: true });
  execFileSync('mkfifo', [fifo]);
  const out = path.join(dir, 'out');
  const child = spawn(process.execPath, [BIN, 'shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '5'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (stdout.includes('shard 3:')) resolve();
    });
    child.once('exit', () => reject(new Error(`exited before 3 shards: ${stdout}${stderr}`)));
  });
  assert.ok(
    fs.readdirSync(out).some((f) => f.endsWith('.partial')),
    'its unfinished shards are there while it runs',
  );
  child.kill('SIGINT');
  assert.equal(await exited, 130, stderr);
  assert.deepEqual(fs.readdirSync(out), []);
  assert.match(stderr, new RegExp(`^shards: interrupted: the \\d+ unfinished shard files removed; ${out} holds what it held before$`, 'm'));
});
