// A run killed midway (SIGKILL, after it has closed some shards) leaves no file that looks like a
// shard: its shards are hidden temporary files until all are complete, and no shards.json. A
// rerun is refused naming those leftovers; with --force it writes the shards whole and removes
// them. The run is held midway by an image that is a FIFO (reading it waits for a writer).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { readTfRecords, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const dir = tempDir('shards-interrupted');

/** Resolves once `out` holds `text`, or fails after `ms`. */
function waitForOutput(child: ReturnType<typeof spawn>, text: string, ms: number): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} within ${ms} ms; printed: ${seen}`)), ms);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

test('a run killed midway leaves only hidden temporary files; --force then writes whole shards', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const fifo = path.join(digits.dir, '9', '99999.png'); // the last image in the folder's order
  fs.mkdirSync(path.dirname(fifo), { recursive: true });
  execFileSync('mkfifo', [fifo]);
  const out = path.join(dir, 'out');
  const child = spawn(process.execPath, [BIN, 'shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '5'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await waitForOutput(child, 'shard 5:', 120_000);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const left = fs.readdirSync(out).sort();
  assert.deepEqual(visibleFiles(out), [], `left: ${left.join(', ')}`);
  assert.ok(left.length >= 5 && left.every((f) => f.startsWith('.') && f.endsWith('.partial')), left.join(', '));

  const refused = runCli(['shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '5']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, new RegExp(`the out dir ${out} already holds shards \\(${left[0]!.replace(/\./g, '\\.')}`));

  fs.rmSync(fifo);
  fs.copyFileSync(digits.files[0]!, fifo);
  const forced = runCli(['shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '5', '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  const shards = fs
    .readdirSync(out)
    .filter((f) => f !== 'shards.json')
    .sort();
  assert.deepEqual(
    shards,
    ['0', '1', '2', '3', '4', '5', '6'].map((i) => `train-0000${i}-of-00007.tfrecord`),
  );
  assert.equal(
    readTfRecords(shards.map((f) => path.join(out, f))).reduce((n, f) => n + f.records.length, 0),
    31,
  );
});
