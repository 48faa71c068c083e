// Image decoding throughput: decode + resize (shorter side to the size, centre crop) + random
// horizontal flip, uint8 rows, images/s with 1 thread and with every core (500x375 and
// 2000x1500 JPEGs to 224x224, 32x32 PNGs as they are), beside torchvision's
// ImageFolder + DataLoader doing the same on the same folder (num_workers 0 and = the threads).
// Ours runs the training loop's way: batches of 32 in order, `prefetch` batches ahead, each
// batch's rows copied out of the pipeline's slots. Best of the reps, after a warm pass.
//   node --import tsx scripts/bench/images-decode.ts [--reps 3] [--jpegs 400] [--large 100] [--pngs 2000]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { decodeSpec } from '../../src/data/images/decode-spec.ts';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { ImagePipeline } from '../../src/data/images/image-pipeline.ts';
import { describeJpegDecoder } from '../../src/data/images/jpeg-native.ts';
import { imageExtensions, requireSharp } from '../../src/data/images/sharp-module.ts';
import type { ImageSource } from '../../src/shared/config/types.ts';
import { benchDecoding, benchFolder, type BenchFolder } from './images-folders.ts';
import { haveTorchvision, torchvisionRate } from './images-torchvision.ts';
import { pipelineRate } from './pipeline-rate.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    jpegs: { type: 'string', default: '400' },
    pngs: { type: 'string', default: '2000' },
    large: { type: 'string', default: '100' },
  },
});
const REPS = Number(values.reps);

/** Our images/s over the folder with `threads` decoding threads. */
async function ourRate(f: BenchFolder, size: number, threads: number): Promise<number> {
  const ix = indexFolder(f.dir, 'bench', imageExtensions(requireSharp('bench')), null);
  const src: ImageSource = { type: 'images', dir: f.dir, list: null, ...benchDecoding(size) };
  const spec = decodeSpec(src, true, 0);
  const pipeline = new ImagePipeline(ix.paths, spec, threads, 'bench');
  return pipelineRate(pipeline, ix.paths.count, size * size * 3, REPS);
}

const cores = os.availableParallelism();
const folders: Array<[BenchFolder, number]> = [
  [await benchFolder('jpeg', Number(values.jpegs)), 224],
  [await benchFolder('jpeg-large', Number(values.large)), 224],
  [await benchFolder('png', Number(values.pngs)), 32],
];
const torch = haveTorchvision();
const rows: Array<Record<string, string | number>> = [];
for (const [f, size] of folders) {
  for (const threads of [...new Set([1, cores])]) {
    const ours = await ourRate(f, size, threads);
    const tv = torch ? torchvisionRate(f.dir, size, threads === 1 ? 0 : threads, REPS) : null;
    rows.push({
      folder: f.name,
      out: `${size}x${size}x3`,
      threads,
      'mgpu img/s': Math.round(ours),
      'per thread': Math.round(ours / threads),
      'torchvision img/s': tv === null ? 'n/a' : Math.round(tv),
      'tv workers': threads === 1 ? 0 : threads,
      ratio: tv === null ? 'n/a' : (ours / tv).toFixed(2),
    });
  }
}
printTable(`Image decoding: decode + resize + centre crop + flip, uint8 (${cores} cores; best of ${REPS}; ${describeJpegDecoder()})`, rows);
saveJson('images-decode', rows);
