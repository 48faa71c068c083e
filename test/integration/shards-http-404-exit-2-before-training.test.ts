// A shard URL the server does not have (404), given to `mgpu-train train`, exits 2 before
// training (no metrics.jsonl, no checkpoint) with an E_DATA error naming the split, the URL and
// the 404, asked once (a 4xx is not tried again), and a hint about the URL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { refusedBeforeTraining } from '../helpers/digit-shard-run.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

test('a shard URL that 404s: exit 2 before training, naming the URL and the 404', async (t) => {
  const dir = tempDir('shards-http-404');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 8);
  writeDigitShards(digits, path.join(dir, 'shards'), 2);
  fs.rmSync(path.join(dir, 'shards', 'train-00001-of-00002'));
  const server = await serveShards(path.join(dir, 'shards'));
  t.after(() => server.stop());
  t.diagnostic(`served by ${server.which} at ${server.url}`);
  const r = await refusedBeforeTraining(
    dir,
    { type: 'tfrecord', files: `${server.url}/train-{00000..00001}-of-00002`, image: 'image/encoded', label: 'image/class/label', size: [28, 28], channels: 1 },
    { ...process.env, MGPU_CACHE_DIR: path.join(dir, 'cache') },
  );
  const missing = `${server.url}/train-00001-of-00002`;
  assert.equal(
    r.error,
    `error E_DATA: data.train: shard ${missing}: HTTP 404 Not Found on its HEAD (not tried again: a 4xx is the request's, not the server's)`,
  );
  assert.match(r.stderr, /hint: check the URL and that this machine may read it \(a presigned URL may have expired/);
  if (server.which === 'node') assert.equal(server.log.filter((l) => l === 'HEAD /train-00001-of-00002').length, 1, 'a 404 is asked once');
  else
    assert.equal(
      fs
        .readFileSync(path.join(server.dir!, 'access.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"HEAD /train-00001-of-00002 ')).length,
      1,
      'a 404 is asked once',
    );
});
