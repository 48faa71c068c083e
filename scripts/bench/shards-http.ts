// What reading TFRecord shards over HTTP costs against the same shards read locally: samples/s of
// a tfrecord split's image pipeline (its decoding threads read each record, by pread or by an HTTP
// Range request, and decode it), and of the reads alone (every record once, in a seeded random
// order, as many at once as are in flight), locally and over HTTP on loopback at 1 and 8
// requests in flight. The server is nginx where /usr/sbin/nginx is installed, else Node's own
// (test/helpers/shard-server.ts; the table says which). The JPEGs are made once by sharp.
// Not a test: nothing here asserts a time.
//   node --import tsx scripts/bench/shards-http.ts [--records 2000] [--size 160] [--threads 2] [--batch 64]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DataSource } from '../../src/config/types.ts';
import { loadDataset } from '../../src/data/dataset.ts';
import type { ImagePipeline } from '../../src/data/images/image-pipeline.ts';
import { trySharp } from '../../src/data/images/sharp-module.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { readShardRange } from '../../src/data/shards/shard-range.ts';
import { FOOTER_BYTES, HEADER_BYTES } from '../../src/data/shards/tfrecord-framing.ts';
import { TFRECORD_FORMAT } from '../../src/data/shards/write-tfrecord.ts';
import { serveShards } from '../../test/helpers/shard-server.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '2000' },
    size: { type: 'string', default: '160' },
    threads: { type: 'string', default: '2' },
    batch: { type: 'string', default: '64' },
  },
});
const N = Number(values.records);
const SIZE = Number(values.size);
const THREADS = Number(values.threads);
const BATCH = Number(values.batch);
const SHARDS = 4;
const sharp = trySharp();
if (sharp instanceof Error) throw sharp;

const dir = path.join(os.tmpdir(), `mgpu-bench-shards-http-${N}-${SIZE}`);
const name = (k: number) => TFRECORD_FORMAT.fileName('train', k, SHARDS);
if (!fs.existsSync(path.join(dir, '.complete'))) {
  fs.mkdirSync(dir, { recursive: true });
  const per = Math.ceil(N / SHARDS);
  for (let k = 0; k < SHARDS; k++) {
    const fd = fs.openSync(path.join(dir, name(k)), 'w');
    for (let i = k * per; i < Math.min(N, (k + 1) * per); i++) {
      const noise = Buffer.alloc(SIZE * SIZE * 3);
      for (let j = 0; j < noise.length; j++) noise[j] = (i * 31 + j * 7 + ((j * j) >> 5)) & 255;
      const bytes = await sharp(noise, { raw: { width: SIZE, height: SIZE, channels: 3 } })
        .jpeg({ quality: 85 })
        .toBuffer();
      const sample = {
        number: i,
        key: String(i).padStart(7, '0'),
        bytes,
        ext: 'jpg',
        format: 'jpeg',
        label: i % 10,
        className: String(i % 10),
        filename: `${i}.jpg`,
        mtime: 0,
      };
      for (const b of TFRECORD_FORMAT.encode(sample)) fs.writeSync(fd, b);
    }
    fs.closeSync(fd);
  }
  fs.writeFileSync(path.join(dir, '.complete'), '');
}
for (let k = 0; k < SHARDS; k++) shardIndex(path.join(dir, name(k)), { image: 'image/encoded', label: 'image/class/label' }); // kept beside: the HTTP runs fetch it
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');
fs.rmSync(process.env.MGPU_CACHE_DIR, { recursive: true, force: true });

/** A seeded permutation of 0..n-1 (the same for every row). */
function permutation(n: number): Uint32Array {
  const p = Uint32Array.from({ length: n }, (_, i) => i);
  let s = 12345;
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0;
    const j = s % (i + 1);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** Samples/s of the split's pipeline over one epoch, batch after batch (one batch ahead, as a run's prefetch). */
async function pipelineRate(files: string, inFlight: number): Promise<number> {
  const src = {
    type: 'tfrecord',
    files,
    image: 'image/encoded',
    label: 'image/class/label',
    labelOffset: 0,
    size: [128, 128],
    channels: 3,
    resize: 'stretch',
    rescale: 'unit',
    normalize: null,
    augment: null,
    orientation: 'exif',
    http: { inFlight, retries: 5, timeoutMs: 30000 },
  } as unknown as DataSource;
  const split = await loadDataset(src, 'data.train', null, null, { threads: THREADS, prefetch: 1, seed: 1, localWorkers: 1 });
  const pipeline = split.pipeline as ImagePipeline;
  const order = permutation(split.count);
  const batches = Array.from({ length: Math.floor(split.count / BATCH) }, (_, b) => order.subarray(b * BATCH, (b + 1) * BATCH));
  const t = performance.now();
  for (let b = 0; b < batches.length; b++) {
    if (b + 1 < batches.length) pipeline.prefetch(batches[b + 1]!, 0);
    await pipeline.ready(batches[b]!, 0);
    pipeline.release(batches[b]!, 0);
  }
  const s = (performance.now() - t) / 1000;
  await pipeline.close();
  return (batches.length * BATCH) / s;
}

/** Records/s of the reads alone: every record once, `inFlight` at once. */
async function readRate(base: string, inFlight: number): Promise<number> {
  const refs: Array<{ shard: string; offset: number; length: number }> = [];
  for (let k = 0; k < SHARDS; k++) {
    const x = shardIndex(path.join(dir, name(k)), { image: 'image/encoded', label: 'image/class/label' });
    for (let r = 0; r < x.count; r++) refs.push({ shard: `${base}/${name(k)}`, offset: x.offsets[r]!, length: HEADER_BYTES + x.lengths[r]! + FOOTER_BYTES });
  }
  const order = permutation(refs.length);
  const client = new ShardHttp({ inFlight, retries: 5, timeoutMs: 30000 });
  const read = (i: number) => {
    const ref = refs[order[i]!]!;
    return base.startsWith('http')
      ? client.range(ref.shard, ref.offset, ref.length, `record ${i}`)
      : readShardRange(ref.shard, ref.offset, ref.length, `record ${i}`);
  };
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < refs.length) await read(next++);
    }),
  );
  const s = (performance.now() - t) / 1000;
  client.close();
  return refs.length / s;
}

const server = await serveShards(dir);
try {
  const pattern = (base: string) => `${base}/train-{00000..0000${SHARDS - 1}}-of-0000${SHARDS}.tfrecord`;
  const rows: Array<Record<string, string | number>> = [];
  const add = async (what: string, base: string, inFlight: number) => {
    const reads = await readRate(base, inFlight);
    const decoded = await pipelineRate(pattern(base), inFlight);
    rows.push({ 'read from': what, 'in flight': inFlight, 'records/s (reads alone)': Math.round(reads), 'samples/s (read + decode)': Math.round(decoded) });
  };
  await add('local files (pread)', dir, 1); // a thread's preads are synchronous: in flight does not apply
  await add(`HTTP (${server.which}, loopback)`, server.url, 1);
  await add(`HTTP (${server.which}, loopback)`, server.url, 8);
  printTable(
    `TFRecord shards, local vs HTTP: ${N.toLocaleString('en-US')} JPEGs ${SIZE}x${SIZE} in ${SHARDS} shards, decoded to 128x128 by ${THREADS} thread${THREADS === 1 ? '' : 's'}, batches of ${BATCH}`,
    rows,
  );
  saveJson('shards-http', rows);
} finally {
  await server.stop();
}
