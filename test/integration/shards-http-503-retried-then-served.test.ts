// A server that answers 503 twice (to a shard's HEAD, and again to the first record's Range
// request) before it serves (Node's own server: nginx cannot be told to fail on cue) is tried
// again with backoff: the run trains the bits the same shard trains from the local folder.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { trainDigitsOn } from '../helpers/digit-shard-run.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('shards-http-503');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');

test('503 twice, then served: tried again, and the run trains the local bits', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 24);
  writeDigitShards(digits, path.join(dir, 'shards'), 1);
  let heads = 0;
  let firstRange: string | null = null;
  let refused = 0;
  const server = await serveShards(path.join(dir, 'shards'), {
    misbehave: (req) => {
      if (req.method === 'HEAD') return heads++ < 2 ? 503 : null;
      if (req.headers.range && req.headers.range !== 'bytes=0-0') {
        firstRange ??= req.headers.range;
        return req.headers.range === firstRange && refused++ < 2 ? 503 : null;
      }
      return null;
    },
  });
  t.after(() => server.stop());
  t.diagnostic(`served by ${server.which} at ${server.url}`);
  const run = (name: string, files: string) =>
    trainDigitsOn(
      dir,
      name,
      { type: 'tfrecord', files, image: 'image/encoded', label: 'image/class/label', size: [28, 28], channels: 1, http: { retries: 3 } },
      { threads: 1, steps: 4, seed: 4, workers: 1 },
    );
  const overHttp = await run('http', `${server.url}/train-00000-of-00001`);
  const local = await run('local', path.join(dir, 'shards', 'train-00000-of-00001'));
  assert.deepEqual(Buffer.from(overHttp.weights.buffer), Buffer.from(local.weights.buffer));
  assert.deepEqual(server.log.slice(0, 3), ['HEAD /train-00000-of-00001', 'HEAD /train-00000-of-00001', 'HEAD /train-00000-of-00001'], server.log.join('\n'));
  const asked = `GET /train-00000-of-00001 ${firstRange!}`;
  assert.equal(server.log.filter((l) => l === asked).length, 3, `${asked}: answered 503 twice, then served\n${server.log.join('\n')}`);
});
