// Reading record shards against the folder they were made from: the 500x375 JPEGs of the decode
// benchmark (images-folders.ts), as an image folder, as TFRecord shards and as WebDataset tar
// shards (written by `mgpu-train shards`), decoded, resized and cropped to 224x224 with a random
// flip through the image pipeline the training loop uses (batches of 32 in order, 2 ahead),
// with 1 thread and with every core; beside torchvision's ImageFolder + DataLoader on the same
// folder (num_workers 0 and = the threads). Also the record index's build: one scan per shard,
// timed from no index. Best of the reps after a warm pass; not a test: nothing here asserts a time.
// The JPEG decoder is the one a run gets (the title says which): the native one (mgpu_jpeg)
// where it is built; MGPU_JPEG_DECODER=sharp times sharp's instead, the folder column against
// torchvision's being that decoder against PIL's.
//   node --import tsx scripts/bench/shards-read.ts [--reps 3] [--jpegs 400]
//   MGPU_JPEG_DECODER=sharp node --import tsx scripts/bench/shards-read.ts
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeSpec } from '../../src/data/images/decode-spec.ts';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { ImagePipeline } from '../../src/data/images/image-pipeline.ts';
import { describeJpegDecoder } from '../../src/data/images/jpeg-native.ts';
import type { ImageOptions } from '../../src/data/images/load-images.ts';
import { imageExtensions, requireSharp } from '../../src/data/images/sharp-module.ts';
import { loadTfrecord } from '../../src/data/shards/load-tfrecord.ts';
import { loadWebdataset } from '../../src/data/shards/load-webdataset.ts';
import { INDEX_SUFFIX } from '../../src/shared/shard-files.ts';
import type { ImageSource } from '../../src/config/types.ts';
import { benchDecoding, benchFolder } from './images-folders.ts';
import { haveTorchvision, torchvisionRate } from './images-torchvision.ts';
import { pipelineRate, PREFETCH } from './pipeline-rate.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' }, jpegs: { type: 'string', default: '400' } } });
const REPS = Number(values.reps);
const SIZE = 224;
const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

/** Images/s through `pipeline` over its `n` samples of 224x224x3. */
const rate = (pipeline: ImagePipeline, n: number) => pipelineRate(pipeline, n, SIZE * SIZE * 3, REPS);

const decoding = benchDecoding(SIZE);
const options = (threads: number): ImageOptions => ({ threads, prefetch: PREFETCH, seed: 0, localWorkers: 0 });

const folder = await benchFolder('jpeg', Number(values.jpegs));
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-shards-'));
const shardsOf = (format: string) => {
  const dir = path.join(out, format);
  execFileSync(process.execPath, [BIN, 'shards', folder.dir, dir, '--format', format, '--shard-size', '16MB', '--check', 'header'], { stdio: 'ignore' });
  return dir;
};
const tfrecordDir = shardsOf('tfrecord');
const tarDir = shardsOf('webdataset');
const tfrecord = {
  type: 'tfrecord' as const,
  files: path.join(tfrecordDir, '*.tfrecord'),
  image: 'image/encoded',
  label: 'image/class/label',
  labelOffset: 0,
  order: 'random' as const,
  ...decoding,
};
const webdataset = {
  type: 'webdataset' as const,
  shards: path.join(tarDir, '*.tar'),
  image: ['jpg', 'jpeg', 'png'],
  label: 'cls',
  labelOffset: 0,
  order: 'random' as const,
  ...decoding,
};

/** Seconds to index every shard of `dir` from no index, and the records indexed a second. */
async function indexBuild(dir: string, load: () => unknown): Promise<{ s: number; perSec: number; shards: number }> {
  const shards = fs.readdirSync(dir).filter((f) => !f.endsWith(INDEX_SUFFIX) && !f.endsWith('.json'));
  for (const f of fs.readdirSync(dir)) if (f.endsWith(INDEX_SUFFIX)) fs.rmSync(path.join(dir, f));
  const t = performance.now();
  const split = (await load()) as { pipeline: ImagePipeline };
  const s = (performance.now() - t) / 1000;
  await split.pipeline.close();
  return { s, perSec: folder.count / s, shards: shards.length };
}

const sharp = requireSharp('bench');
const rows: Array<Record<string, string | number>> = [];
const indexRows: Array<Record<string, string | number>> = [];
for (const [name, dir, load] of [
  ['tfrecord', tfrecordDir, () => loadTfrecord(tfrecord, 'data.train', null, options(1))],
  ['webdataset', tarDir, () => loadWebdataset(webdataset, 'data.train', null, options(1))],
] as const) {
  const b = await indexBuild(dir, load);
  indexRows.push({ format: name, shards: b.shards, records: folder.count, 'index build s': b.s.toFixed(3), 'records/s': Math.round(b.perSec) });
}
const torch = haveTorchvision();
for (const threads of [...new Set([1, Math.min(2, os.availableParallelism()), os.availableParallelism()])]) {
  const ix = indexFolder(folder.dir, 'bench', imageExtensions(sharp), null);
  const imageSource: ImageSource = { type: 'images', dir: folder.dir, list: null, ...decoding };
  const fromFolder = await rate(new ImagePipeline(ix.paths, decodeSpec(imageSource, true, 0), threads, 'bench'), ix.paths.count);
  const fromTfrecord = await rate((await loadTfrecord(tfrecord, 'data.train', null, options(threads))).pipeline, folder.count);
  const fromTar = await rate((await loadWebdataset(webdataset, 'data.train', null, options(threads))).pipeline, folder.count);
  const tv = torch ? torchvisionRate(folder.dir, SIZE, threads === 1 ? 0 : threads, REPS) : null;
  rows.push({
    threads,
    'folder img/s': Math.round(fromFolder),
    'tfrecord img/s': Math.round(fromTfrecord),
    'webdataset img/s': Math.round(fromTar),
    'tfrecord / folder': (fromTfrecord / fromFolder).toFixed(2),
    'webdataset / folder': (fromTar / fromFolder).toFixed(2),
    'torchvision img/s': tv === null ? 'n/a' : Math.round(tv),
    'tfrecord / torchvision': tv === null ? 'n/a' : (fromTfrecord / tv).toFixed(2),
  });
}
printTable(`Record index build from no index (${folder.name})`, indexRows);
printTable(`Reading ${folder.name} to 224x224x3 (decode + resize + centre crop + flip; ${describeJpegDecoder()}), best of ${REPS}`, rows);
saveJson('shards-read', { index: indexRows, read: rows });
fs.rmSync(out, { recursive: true, force: true });
