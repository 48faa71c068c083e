// The BatchNorm exchange's frames (src/shared/batch-norm-frames.ts) as written down there: a
// request's 32-byte header and float64 values, a reply's 16-byte header, both little-endian,
// read back as written (values bit for bit, -0 and a NaN payload included); a frame of the other
// kind, or anything else, is refused as an internal error naming its first word.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeReplyHeader,
  decodeRequestHeader,
  encodeReply,
  encodeRequest,
  readValues,
  REPLY_HEADER,
  REQUEST_HEADER,
} from '../../src/shared/batch-norm-frames.ts';

const values = Float64Array.from([1.5, -0, 1e300, Number.MIN_VALUE, NaN]);

test('frames: a request reads back as written, header at the documented offsets', () => {
  const b = encodeRequest({ step: 70000, batch: 33, micro: 2, k: 1, seq: 5, values });
  assert.equal(b.length, REQUEST_HEADER + values.length * 8);
  assert.equal(b.subarray(0, 4).toString('latin1'), 'MBNQ');
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((i) => b.readUInt32LE(i * 4)),
    [70000, 33, 2, 1, 5, 5, 0],
  );
  assert.deepEqual(decodeRequestHeader(b), { step: 70000, batch: 33, micro: 2, k: 1, seq: 5, count: 5 });
  const back = readValues(b, REQUEST_HEADER, 5);
  assert.ok(Buffer.from(back.buffer).equals(Buffer.from(values.buffer)), 'values not bit for bit');
});

test('frames: replies, summed and abandoned', () => {
  const summed = encodeReply({ status: 'summed', seq: 9, values });
  assert.equal(summed.subarray(0, 4).toString('latin1'), 'MBNR');
  assert.deepEqual(decodeReplyHeader(summed), { abandoned: false, seq: 9, count: 5 });
  assert.ok(Buffer.from(readValues(summed, REPLY_HEADER, 5).buffer).equals(Buffer.from(values.buffer)));
  const abandoned = encodeReply({ status: 'abandoned', seq: 3 });
  assert.equal(abandoned.length, REPLY_HEADER);
  assert.deepEqual(decodeReplyHeader(abandoned), { abandoned: true, seq: 3, count: 0 });
});

test('frames: a frame of the other kind is refused, naming what it starts with', () => {
  const request = encodeRequest({ step: 0, batch: 1, micro: 1, k: 0, seq: 0, values });
  const reply = encodeReply({ status: 'abandoned', seq: 0 });
  assert.throws(() => decodeReplyHeader(request), { code: 'E_INTERNAL', message: /a reply frame starts with 0x514e424d/ });
  assert.throws(() => decodeRequestHeader(reply), { code: 'E_INTERNAL', message: /a request frame starts with 0x524e424d/ });
});
