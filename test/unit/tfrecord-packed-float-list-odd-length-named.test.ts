// A packed float_list whose byte length is not a multiple of 4 (6 bytes: a float and a half) is
// E_DATA naming the shard, the record and what is wrong, found when the shard is indexed, never
// read as floats past its end. The Example is encoded here by hand (protobuf's wire format).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards } from '../helpers/tfrecord-shards.ts';

/** A length-delimited field: its tag byte (field number << 3 | 2), its length (< 128), its bytes. */
const field = (no: number, body: number[]) => [(no << 3) | 2, body.length, ...body];

test('a packed float_list of 6 bytes: E_DATA naming the record', () => {
  const floatList = field(1, [0, 0, 0x80, 0x3f, 0, 0]); // value = 1 (4 bytes), then 2 bytes of another
  const feature = field(2, floatList); // Feature { float_list = 2 }
  const entry = [...field(1, [...Buffer.from('x')]), ...field(2, feature)]; // map entry { key = 1, value = 2 }
  const example = field(1, field(1, entry)); // Example { features = 1 { feature = 1 } }
  const file = path.join(tempDir('packed-float'), 'a.tfrecord');
  writeShards([{ path: file, records: [{ features: { x: { float: [2] } } }, { raw: Uint8Array.from(example) }] }]);
  assert.throws(
    () => shardIndex(file, { features: [{ key: 'x', shape: [1] }] }),
    (err: unknown) => {
      assert.ok(err instanceof DataError, String(err));
      assert.match(err.message, new RegExp(`^shard ${file} record 1 \\(at byte \\d+\\): .*a packed float_list of 6 bytes \\(not a multiple of 4\\)`));
      return true;
    },
  );
});
