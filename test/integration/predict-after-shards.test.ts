// A model trained from TFRecord shards written by `mgpu-train shards` predicts on what training
// takes, each told by what the file is: an image folder, a .tfrecord, a WebDataset .tar and an
// .npy of the same images give the same class and score per image (the shards hold the folder's
// images in its order: class, then path), never augmented though training was. Its classes are
// named by the shards.json beside the shards (labels.json, the CSV), not by their numbers. A
// file of none of those kinds is refused naming the kinds predict takes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { predict } from '../../src/api.ts';
import { runPredict } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel, type DigitFolder } from '../helpers/digit-images.ts';
import { runCliAsync } from '../helpers/run-cli.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('predict-after-shards');

/** A digit folder whose class folders are named d0..d9 (not their numbers), in the same order. */
async function namedDigits(at: string, count: number, offset: number): Promise<DigitFolder> {
  const f = await writeDigitFolder(at, count, { offset });
  for (const c of fs.readdirSync(at)) fs.renameSync(path.join(at, c), path.join(at, `d${c}`));
  return { ...f, files: f.files.map((file) => path.join(at, `d${path.basename(path.dirname(file))}`, path.basename(file))) };
}

async function shards(folder: string, out: string, format: 'tfrecord' | 'webdataset'): Promise<string> {
  const r = await runCliAsync(['shards', folder, out, '--format', format]);
  assert.equal(r.code, 0, r.stderr);
  const files = fs.readdirSync(out).filter((f) => f !== 'shards.json' && !f.startsWith('.'));
  assert.equal(files.length, 1, files.join(' '));
  return path.join(out, files[0]!);
}

const rowsOf = (csv: string) => fs.readFileSync(csv, 'utf8').trimEnd().split('\n');

test('trained from shards, predict takes an image folder, a .tfrecord, a .tar and an .npy alike', async () => {
  const trainSet = await namedDigits(path.join(dir, 'train'), 40, 0);
  const photos = await namedDigits(path.join(dir, 'photos'), 12, 500);
  await shards(trainSet.dir, path.join(dir, 'train-shards'), 'tfrecord');
  const cfg = buildConfig(
    dir,
    {
      name: 's',
      model: { module: writeDigitModel(dir) },
      loss: 'sparseCategoricalCrossentropy',
      data: {
        train: {
          type: 'tfrecord',
          files: path.join(dir, 'train-shards', '*.tfrecord'),
          image: 'image/encoded',
          label: 'image/class/label',
          size: [28, 28],
          channels: 1,
          augment: { flip: 'horizontal' }, // training's alone: predict never augments
        },
        threads: 1,
      },
      training: { batchSize: 8, steps: 3, seed: 1 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    },
    1,
  );
  await train(cfg, silent);
  const model = { dir: path.join(cfg.runDir, 'final'), ema: false };
  const names = Array.from({ length: 10 }, (_, i) => `d${i}`);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(model.dir, 'labels.json'), 'utf8')).classes, names);

  const folderCsv = path.join(dir, 'folder.csv');
  await runPredict(cfg, silent, model, photos.dir, folderCsv);
  const [header, ...rows] = rowsOf(folderCsv);
  assert.equal(header, 'path,class,score');
  assert.deepEqual(
    rows.map((r) => r.split(',')[0]),
    photos.files,
  );
  const classScore = rows.map((r) => r.split(',').slice(1).join(','));
  for (const r of classScore) assert.match(r, /^d\d,[0-9.e-]+$/);

  const asShard = async (format: 'tfrecord' | 'webdataset') => {
    const shard = await shards(photos.dir, path.join(dir, `photos-${format}`), format);
    const out = path.join(dir, `${format}.csv`);
    await runPredict(cfg, silent, model, shard, out);
    return rowsOf(out);
  };
  assert.deepEqual(await asShard('tfrecord'), ['class,score', ...classScore]);
  // From code, a path is told apart as the command's --input is.
  const fromApi = await predict(cfg, {
    checkpoint: model.dir,
    input: path.join(
      dir,
      'photos-tfrecord',
      fs.readdirSync(path.join(dir, 'photos-tfrecord')).find((f) => f.endsWith('.tfrecord'))!,
    ),
    print: false,
  });
  assert.deepEqual(
    fromApi.predicted,
    classScore.map((r) => r.split(',')[0]),
  );
  assert.deepEqual(await asShard('webdataset'), ['class,score', ...classScore]);

  const x = path.join(dir, 'photos.npy');
  writeNpy(x, { dtype: 'float32', shape: [12, 28, 28, 1], data: Float32Array.from(photos.pixels, (k) => k / 255) });
  const npyCsv = path.join(dir, 'npy.csv');
  await runPredict(cfg, silent, model, x, npyCsv);
  assert.deepEqual(rowsOf(npyCsv), ['class,score', ...classScore]);

  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'not rows of anything\n');
  await assert.rejects(runPredict(cfg, silent, model, notes, path.join(dir, 'notes.csv')), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_USAGE');
    assert.match(e.message, /notes\.txt: not a kind of file predict reads/);
    assert.match(e.hint ?? '', /image files .* or folders of them, TFRecord shards \(\.tfrecord\), WebDataset tar shards \(\.tar\) or \.npy arrays/);
    return true;
  });
  assert.ok(!fs.existsSync(path.join(dir, 'notes.csv')));
});
