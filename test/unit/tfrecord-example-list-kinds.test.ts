// tf.train.Example's three list kinds as a Python encoder writes them: bytes_list, float_list
// packed and not, int64_list packed and not with negative values (ten-byte varints) and values
// past 2^53; a key of non-ASCII text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bytesValues, decodeExample, floatValues, int64Values } from '../../src/data/shards/example-proto.ts';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { unframe } from '../../src/data/shards/tfrecord-framing.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-kinds');

test('bytes, floats and int64s, packed and not, decode to the values written', () => {
  const file = path.join(dir, 'a.tfrecord');
  const big = -(2n ** 62n) - 5n;
  writeShards([
    {
      path: file,
      records: [
        {
          features: {
            b: { bytes: [Uint8Array.from([0, 255]), new Uint8Array(0), Uint8Array.from([7])] },
            fp: { float: [1.5, -2.25, 1e-3] },
            fu: { float: [3.5, -0.5], packed: false },
            ip: { int64: [0, -1, 300, big, 2n ** 63n - 1n] },
            iu: { int64: [-7, 2 ** 40], packed: false },
            'clé/ü': { int64: [] },
          },
        },
      ],
    },
  ]);
  const bytes = fs.readFileSync(file);
  const index = scanShard(file, bytes.length, { image: null, label: null });
  const f = decodeExample(unframe(bytes.subarray(0, 16 + index.lengths[0]!), file, 0, 0));
  assert.deepEqual([...f.keys()].sort(), ['b', 'clé/ü', 'fp', 'fu', 'ip', 'iu']);
  assert.deepEqual(
    bytesValues(f.get('b')!).map((v) => [...v]),
    [[0, 255], [], [7]],
  );
  assert.deepEqual([...floatValues(f.get('fp')!)], [1.5, -2.25, Math.fround(1e-3)]);
  assert.deepEqual([...floatValues(f.get('fu')!)], [3.5, -0.5]);
  assert.deepEqual(int64Values(f.get('ip')!), [0n, -1n, 300n, big, 2n ** 63n - 1n]);
  assert.deepEqual(int64Values(f.get('iu')!), [-7n, 2n ** 40n]);
  assert.equal(f.get('clé/ü')!.kind, 'int64');
  assert.deepEqual(int64Values(f.get('clé/ü')!), []);
});
