// What a checkpoint records of its data, and what a resume makes of it, for the cases the
// integration test does not train: an image folder whose files were renamed (the same count,
// other paths), an eval split of another count (refused unless --allow-changed names it), and a
// large file whose mtime alone changed (the same bytes: a note, not a refusal) or that was
// rewritten with other rows of the same size (its CRC differs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dataRecord } from '../../src/data/data-record.ts';
import { loadSplits, type Splits } from '../../src/data/splits.ts';
import { checkResumedData } from '../../src/coordinator/run/resume-data.ts';
import type { TrainerState } from '../../src/coordinator/run/trainer-state.ts';
import { validateConfig } from '../../src/config/validate.ts';
import type { MgpuError } from '../../src/shared/errors.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder } from '../helpers/digit-images.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-data-record-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');

const config = (data: Record<string, unknown>) =>
  validateConfig(
    { model: { module: './model.mjs' }, loss: 'sparseCategoricalCrossentropy', data, training: { batchSize: 4 }, optimizer: { name: 'sgd' } },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

async function load(data: Record<string, unknown>): Promise<Splits> {
  const splits = await loadSplits(config(data));
  await splits.train.pipeline?.close();
  return splits;
}

const checkpointOf = (s: Splits) => ({ data: dataRecord(s.train, s.eval) }) as TrainerState;
const resumeOn = (then: Splits, now: Splits, allowed: string[] = []) => checkResumedData('ckpt', checkpointOf(then), now.train, now.eval, allowed);
const refusal = (fn: () => unknown): MgpuError => {
  try {
    fn();
  } catch (err) {
    return err as MgpuError;
  }
  throw new Error('not refused');
};

function npy(name: string, rows: number, cols: number, seed = 1): string {
  const file = path.join(dir, name);
  writeNpy(file, { dtype: 'float32', shape: [rows, cols], data: Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * seed)) });
  return file;
}

test('an image folder whose files were renamed (the same count) is refused naming data.train.dir', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 12);
  const data = { train: { type: 'images', dir: './digits', size: [28, 28], channels: 1 }, threads: 1 };
  const then = await load(data);
  assert.deepEqual(resumeOn(then, await load(data)), [], 'the same folder is the same data');
  const victim = digits.files[3]!;
  fs.renameSync(victim, path.join(path.dirname(victim), `renamed-${path.basename(victim)}`));
  const now = await load(data);
  assert.equal(now.train.count, then.train.count);
  const err = refusal(() => resumeOn(then, now));
  assert.equal(err.code, 'E_RESUME');
  assert.match(
    err.message,
    /^cannot resume from ckpt: the data changed since it was written: data\.train\.dir: the 12 images are not the ones the checkpoint was trained on/,
  );
  assert.match(err.hint!, /--allow-changed data\.train\.dir\b/);
  assert.match(resumeOn(then, now, ['data.train.dir'])[0]!, /^data changed on resume \(--allow-changed\): data\.train\.dir: /);
});

test('an eval split of another count is refused unless --allow-changed names it', async () => {
  const train = { type: 'npy', features: npy('tx.npy', 20, 3), labels: npy('ty.npy', 20, 1) };
  const then = await load({ train, eval: { type: 'npy', features: npy('ex.npy', 8, 3), labels: npy('ey.npy', 8, 1) } });
  const now = await load({ train, eval: { type: 'npy', features: npy('ex.npy', 6, 3), labels: npy('ey.npy', 6, 1) } });
  const err = refusal(() => resumeOn(then, now));
  assert.equal(err.code, 'E_RESUME');
  assert.match(err.message, /data\.eval holds 6 samples, the checkpoint's 8; data\.eval\.features .*ex\.npy: 200 bytes now, the checkpoint's 224/);
  assert.match(resumeOn(then, now, ['data.eval'])[0]!, /^data changed on resume \(--allow-changed\): data\.eval holds 6 samples/);
});

test('a large file whose mtime alone changed is the same data (a note); one rewritten is not', async () => {
  const features = npy('big-x.npy', 20_000, 4); // 320 KB: more than the 128 KiB its CRC covers
  const data = { train: { type: 'npy', features, labels: npy('big-y.npy', 20_000, 1) } };
  const then = await load(data);
  fs.utimesSync(features, new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
  const lines = resumeOn(then, await load(data));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(
    lines[0]!,
    /^note: data\.train\.features .*big-x\.npy was modified since the checkpoint \(.*, now 2026-01-02T03:04:05\.000Z\), but its size and its first and last 64 KiB are the same/,
  );
  npy('big-x.npy', 20_000, 4, 2); // rewritten: the same size, other rows
  const rewritten = await load(data);
  assert.match(
    refusal(() => resumeOn(then, rewritten)).message,
    /data\.train\.features .*big-x\.npy: its first and last 64 KiB differ \(CRC-32C [0-9a-f]{8} now, the checkpoint's [0-9a-f]{8}; 320,128 bytes both\)/,
  );
});

test('a same-shaped rewrite of one file of a pattern is refused naming that file; the same rows renamed are not', async () => {
  npy('px-1.npy', 10, 3);
  npy('px-2.npy', 10, 3);
  const data = { train: { type: 'npy', features: './px-*.npy', labels: npy('py.npy', 20, 1) } };
  const then = await load(data);
  npy('px-1.npy', 10, 3, 5); // the same shape, other rows
  const rewritten = await load(data);
  const err = refusal(() => resumeOn(then, rewritten));
  assert.match(err.message, /: data\.train\.features .*px-1\.npy: its bytes differ \(CRC-32C [0-9a-f]{8} now, the checkpoint's [0-9a-f]{8}; 248 bytes both\)$/);
  npy('px-1.npy', 10, 3);
  fs.renameSync(path.join(dir, 'px-2.npy'), path.join(dir, 'px-3.npy'));
  assert.deepEqual(resumeOn(then, await load(data)), [], 'the same rows under another name are the same data');
});
