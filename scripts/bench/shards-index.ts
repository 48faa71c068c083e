// What a record index costs for a million records: one TFRecord shard of N small tf.train.Example
// records (a 64-byte "image" and a class label each, as a record of ImageNet's shards minus its
// JPEG), written once into os.tmpdir(), then indexed from no index (one scan that verifies both
// CRCs of every record and reads each label), read back from the index file kept beside it, and
// the heap and RSS growth of holding it (three typed arrays, 16 bytes a record, not an object per
// record). Not a test: nothing here asserts a time.
//   node --import tsx scripts/bench/shards-index.ts [--records 1000000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { encodeExample } from '../../src/data/shards/write-example.ts';
import { INDEX_SUFFIX, shardIndex, type ShardIndex } from '../../src/data/shards/shard-index.ts';
import { tfRecord } from '../../src/shared/tfrecord-frame.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000000' } } });
const N = Number(values.records);
const file = path.join(os.tmpdir(), `mgpu-bench-shard-${N}.tfrecord`);
if (!fs.existsSync(`${file}.complete`)) {
  const fd = fs.openSync(file, 'w');
  const image = Buffer.alloc(64, 7);
  const chunk: Buffer[] = [];
  for (let i = 0; i < N; i++) {
    chunk.push(
      tfRecord(
        encodeExample([
          ['image/encoded', { bytes: image }],
          ['image/class/label', { int64: i % 1000 }],
        ]),
      ),
    );
    if (chunk.length === 10_000 || i === N - 1) fs.writeSync(fd, Buffer.concat(chunk.splice(0)));
  }
  fs.closeSync(fd);
  fs.writeFileSync(`${file}.complete`, '');
}
const keys = { image: 'image/encoded', label: 'image/class/label' };
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

/** Time and memory of one shardIndex call. */
function timed(what: string): { row: Record<string, string | number>; index: ShardIndex } {
  gc();
  const before = process.memoryUsage();
  const t = performance.now();
  const index = shardIndex(file, keys);
  const s = (performance.now() - t) / 1000;
  gc();
  const after = process.memoryUsage();
  return {
    index,
    row: {
      what,
      how: index.how,
      records: index.count,
      s: s.toFixed(3),
      'records/s': Math.round(index.count / s),
      'heap + buffers growth MiB': mib(after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers),
      'RSS growth MiB': mib(after.rss - before.rss),
    },
  };
}

fs.rmSync(`${file}${INDEX_SUFFIX}`, { force: true });
const built = timed('built: one scan, both CRCs of every record');
const read = timed('read back from the index file');
const rows = [built.row, read.row];
const size = fs.statSync(file).size;
printTable(
  `Record index of one TFRecord shard of ${N.toLocaleString('en-US')} records (${mib(size)} MiB; index file ${mib(fs.statSync(`${file}${INDEX_SUFFIX}`).size)} MiB)`,
  rows,
);
saveJson('shards-index', rows);
