// A run that trained no step leaves nothing that blocks the same command once its input is
// fixed: a zero-byte JPEG fails the first step (E_DATA, "replace or remove that file, then run
// again", no hint offering a checkpoint or --resume: nothing was trained); --resume there says that its run trained no step and to run without --resume; and
// the same command, the file replaced, trains in that directory, saying it takes the place of
// the run that trained no step. A file the user put there is kept. A run that trained steps is
// never taken for one: without its checkpoints, a rerun is still refused (E_RUN_EXISTS).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('a run that failed at its first step is replaced by the same command once the input is fixed', async () => {
  const dir = tempDir('untrained-run');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  const empty = path.join(digits.dir, '0', 'empty.jpg');
  fs.writeFileSync(empty, '');
  const runDir = path.join(dir, 'run');
  fs.mkdirSync(runDir);
  fs.writeFileSync(path.join(runDir, 'notes.txt'), 'mine');
  const config = writeConfigFile(dir, 'exp', {
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 }, threads: 1 },
    training: { batchSize: 61, steps: 1 }, // every image in the first step
    optimizer: { name: 'sgd', learningRate: 0.1 },
    devices: { simulate: 1, backend: 'cpu' },
    runDir,
  });

  const failed = await runCliAsync(['train', config]);
  assert.equal(failed.code, 2, failed.stdout + failed.stderr);
  assert.match(failed.stderr, new RegExp(`^error E_DATA: .*${path.basename(empty)}.*\\n  hint: replace or remove that file, then run again`, 'm'));
  // Nothing was trained: no hint offers a checkpoint or --resume.
  const hints = failed.stderr.split('\n').filter((l) => l.trimStart().startsWith('hint:'));
  assert.ok(hints.length > 0, failed.stderr);
  for (const h of hints) assert.doesNotMatch(h, /checkpoint|--resume/, 'a hint assumes the run trained steps');
  assert.ok(fs.existsSync(path.join(runDir, 'config.yaml')), 'the failed run wrote its config');

  const resumed = await runCliAsync(['train', config, '--resume']);
  assert.equal(resumed.code, 2, resumed.stdout + resumed.stderr);
  assert.match(
    resumed.stderr,
    /^error E_USAGE: no checkpoint to resume from in .*: its run trained no step .*\n {2}hint: run the same command without --resume/m,
  );

  fs.copyFileSync((await writeDigitFolder(path.join(dir, 'one'), 1, { format: 'jpeg' })).files[0]!, empty); // replaced by a good one
  const again = await runCliAsync(['train', config]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(
    again.stdout,
    new RegExp(`${runDir} held a run that trained no step and left no checkpoint \\(config\\.yaml, .*metrics\\.jsonl.*\\): this run takes its place`),
  );
  assert.ok(fs.existsSync(path.join(runDir, 'final', 'model.json')), 'the run trained to its end');
  assert.equal(fs.readFileSync(path.join(runDir, 'notes.txt'), 'utf8'), 'mine', "the user's file was touched");
});

test('a run that trained steps is not taken for one that trained none, even with its checkpoints gone', async () => {
  const { runDir, config } = tinyRun('untrained-run-trained');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  for (const d of ['checkpoints', 'final']) fs.rmSync(path.join(runDir, d), { recursive: true });
  const metrics = fs.readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8');

  const again = await runCliAsync(['train', config]);
  assert.equal(again.code, 2, again.stdout + again.stderr);
  assert.match(again.stderr, /^error E_RUN_EXISTS: .* holds another run: config\.yaml, /m);
  assert.equal(fs.readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8'), metrics, 'the earlier run was changed');
});
