// The JPEG decoders against PIL: the 500x375 JPEGs of the decode benchmark (quality 90, noisy) decoded,
// resized (shorter side to 224, centre crop) and flipped into uint8 rows through the image
// pipeline the training loop uses, by sharp alone (MGPU_JPEG_DECODER=sharp) and by the native
// decoder (mgpu_jpeg, libjpeg-turbo), beside torchvision's ImageFolder + DataLoader (PIL) on the
// same folder, with 1 and 2 threads (DataLoader workers 0 and 2). Each figure is the median of
// `reps` passes, the configurations taking turns pass by pass so a load that comes and goes
// falls on all of them alike. Images/s is wall-clock (noisy on a shared machine); CPU ms per
// image is the process's CPU time (every thread, and the DataLoader's worker processes) over the
// pass, which load barely moves: compare those on a busy machine.
//   node --import tsx scripts/bench/jpeg-decoders.ts [--reps 5] [--jpegs 400] [--large 0]
import { parseArgs } from 'node:util';
import { decodeSpec } from '../../src/data/images/decode-spec.ts';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { ImagePipeline } from '../../src/data/images/image-pipeline.ts';
import { jpegAddon, JPEG_DECODER_ENV } from '../../src/data/images/jpeg-native.ts';
import { imageExtensions, requireSharp } from '../../src/data/images/sharp-module.ts';
import type { ImageSource } from '../../src/shared/config/types.ts';
import { benchDecoding, benchFolder, type BenchFolder } from './images-folders.ts';
import { haveTorchvision, torchvisionCpu } from './images-torchvision.ts';
import { pipelinePass } from './pipeline-rate.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, jpegs: { type: 'string', default: '400' }, large: { type: 'string', default: '0' } },
});
const REPS = Number(values.reps);
const SIZE = 224;

interface Run {
  decoder: string;
  threads: number;
  pass(): Promise<{ rate: number; cpuMs: number } | null>;
  close(): Promise<void>;
}

/** Our pipeline over `f` with `threads` threads and the decoder `decoder` (set for the threads it starts). */
function ours(f: BenchFolder, decoder: 'sharp' | 'native', threads: number): Run {
  const ix = indexFolder(f.dir, 'bench', imageExtensions(requireSharp('bench')), null);
  const src: ImageSource = { type: 'images', dir: f.dir, list: null, ...benchDecoding(SIZE) };
  if (decoder === 'sharp') process.env[JPEG_DECODER_ENV] = 'sharp';
  const pipeline = new ImagePipeline(ix.paths, decodeSpec(src, true, 0), threads, 'bench'); // its threads copy the environment now
  delete process.env[JPEG_DECODER_ENV];
  let epoch = 0;
  const pass = async () => {
    const c = process.cpuUsage();
    const t = performance.now();
    await pipelinePass(pipeline, f.count, SIZE * SIZE * 3, epoch++);
    const used = process.cpuUsage(c);
    return { rate: f.count / ((performance.now() - t) / 1000), cpuMs: (used.user + used.system) / 1000 / f.count };
  };
  return { decoder: decoder === 'sharp' ? 'sharp' : jpegAddon().addon!.version(), threads, pass, close: () => pipeline.close() };
}

function torchvision(f: BenchFolder, threads: number): Run {
  const workers = threads === 1 ? 0 : threads;
  return { decoder: `torchvision (PIL), ${workers} workers`, threads, pass: async () => torchvisionCpu(f.dir, SIZE, workers), close: async () => {} };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const folders = [await benchFolder('jpeg', Number(values.jpegs))];
if (Number(values.large) > 0) folders.push(await benchFolder('jpeg-large', Number(values.large)));
const native = jpegAddon();
if (!native.addon) console.log(`(no native decoder: ${native.reason})`);
const torch = haveTorchvision();
const rows: Array<Record<string, string | number>> = [];
for (const f of folders) {
  for (const threads of [1, 2]) {
    const runs = [ours(f, 'sharp', threads), ...(native.addon ? [ours(f, 'native', threads)] : []), ...(torch ? [torchvision(f, threads)] : [])];
    const seen = runs.map(() => ({ rate: [] as number[], cpuMs: [] as number[] }));
    for (const r of runs) await r.pass(); // warm
    for (let rep = 0; rep < REPS; rep++) {
      for (const [i, r] of runs.entries()) {
        const got = await r.pass();
        if (!got) continue;
        seen[i]!.rate.push(got.rate);
        seen[i]!.cpuMs.push(got.cpuMs);
      }
    }
    for (const r of runs) await r.close();
    const pil = torch ? median(seen.at(-1)!.cpuMs) : NaN;
    for (const [i, r] of runs.entries()) {
      const cpu = median(seen[i]!.cpuMs);
      rows.push({
        folder: f.name,
        decoder: r.decoder,
        threads,
        'img/s': Math.round(median(seen[i]!.rate)),
        'CPU ms/img': cpu,
        'PIL CPU / ours': Number.isNaN(pil) ? 'n/a' : (pil / cpu).toFixed(2),
      });
    }
  }
}
printTable(`JPEG decoders: decode + resize ${SIZE} + centre crop + flip, uint8 (median of ${REPS} interleaved passes)`, rows);
saveJson('jpeg-decoders', rows);
