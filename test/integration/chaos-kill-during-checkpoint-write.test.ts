// A machine that dies while a checkpoint is being written must never leave one that looks
// whole. The run is SIGKILLed the moment a new entry appears in checkpoints/ (the start of a
// checkpoint's write), three times, resuming in between; after each kill every directory named
// step-<k> must hold every file its checksums.json lists, each of the size and CRC-32C recorded
// (checked with a bit-by-bit CRC written for the tests), and --resume must go on from one. A
// guard: at least one kill must have landed mid-write (a torn step-<k>.tmp-<pid> left), or the
// test proved nothing; the last run, to its end, removes the torn directories.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, startCli, waitFor, waitForRunStep, writeConfigFile } from '../helpers/chaos.ts';
import { crc32cBitwise } from '../helpers/crc32c-reference.ts';
import { FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-ckpt-write');
const runDir = path.join(dir, 'run');
const root = path.join(runDir, 'checkpoints');

/** About 1.1M parameters, so that a checkpoint (weights + Adam's two slots, ~13 MB) takes a while to write. */
function writeWideModel(): string {
  const file = path.join(dir, 'wide.mjs');
  fs.writeFileSync(
    file,
    `export default (tf) => tf.sequential({ layers: [
  tf.layers.dense({ inputShape: [${FEATURES}], units: 1024, activation: 'tanh' }),
  tf.layers.dense({ units: 1024, activation: 'tanh' }),
  tf.layers.dense({ units: 3, activation: 'softmax' }),
] });\n`,
  );
  return file;
}

/** What is wrong with a step-<k> directory, judged by its own checksums.json; null when whole. */
function damage(ckpt: string): string | null {
  const sumsFile = path.join(ckpt, 'checksums.json');
  if (!fs.existsSync(sumsFile)) return 'no checksums.json';
  const sums = JSON.parse(fs.readFileSync(sumsFile, 'utf8')) as { files: Record<string, { bytes: number; crc32c: string }> };
  for (const [name, want] of Object.entries(sums.files)) {
    const file = path.join(ckpt, name);
    if (!fs.existsSync(file)) return `${name} is missing`;
    const bytes = fs.readFileSync(file);
    if (bytes.byteLength !== want.bytes) return `${name} has ${bytes.byteLength} bytes, not ${want.bytes}`;
    if (crc32cBitwise(bytes).toString(16).padStart(8, '0') !== want.crc32c) return `${name}'s CRC-32C differs`;
  }
  return null;
}

/** Starts the run and SIGKILLs it as soon as a new entry appears under checkpoints/ after step `after`. */
async function killMidCheckpoint(config: string, args: string[], after: number): Promise<void> {
  const run = startCli(['train', config, ...args]);
  try {
    await waitForRunStep(run.done, path.join(runDir, 'metrics.jsonl'), after);
    await waitFor(() => fs.existsSync(root), 60_000, 'the checkpoints directory');
    const seen = new Set(fs.readdirSync(root));
    const watcher = fs.watch(root, (_, name) => {
      if (name && !seen.has(name)) run.child.kill('SIGKILL');
    });
    try {
      const end = await run.done;
      assert.equal(end.signal, 'SIGKILL', `the run ended before a checkpoint write was caught: ${end.stdout}${end.stderr}`);
    } finally {
      watcher.close();
    }
  } finally {
    run.child.kill('SIGKILL');
  }
}

test('SIGKILL while a checkpoint is written never leaves a step-<k> that looks whole but is not', async () => {
  const config = writeConfigFile(dir, 'exp', {
    model: { module: writeWideModel() },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 64, 'onehot', 4) },
    training: { batchSize: 8, steps: 100_000 },
    optimizer: { name: 'adam', learningRate: 0.001 },
    checkpoint: { every: 1, keep: 2 },
    log: { every: 1 },
    devices: { simulate: 1, backend: 'wasm' },
    runDir,
  });
  let torn = 0;
  for (let round = 0; round < 3; round++) {
    await killMidCheckpoint(config, round === 0 ? [] : ['--resume'], round === 0 ? 2 : 1);
    const names = fs.readdirSync(root);
    torn += names.filter((n) => /^step-\d+\.tmp-\d+$/.test(n)).length;
    const steps = names.filter((n) => /^step-\d+$/.test(n));
    assert.ok(steps.length > 0, `round ${round}: no checkpoint at all (${names.join(', ')})`);
    for (const n of steps) assert.equal(damage(path.join(root, n)), null, `round ${round}: ${n} looks whole but is not`);
  }
  assert.ok(torn > 0, 'no kill landed while a checkpoint was being written: the test proved nothing');
  const last = Math.max(
    ...fs
      .readdirSync(root)
      .flatMap((n) => /^step-(\d+)$/.exec(n)?.[1] ?? [])
      .map(Number),
  );
  const r = await runCliAsync(['train', config, '--resume', '--set', `training.steps=${last + 2}`]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`resuming from ${root}/step-${last} at step ${last}`));
  assert.deepEqual(
    fs.readdirSync(root).filter((n) => n.includes('.tmp-')),
    [],
    'the torn directories of the killed runs were left',
  );
});
