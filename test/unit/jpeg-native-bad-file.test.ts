// A damaged JPEG fails the native decoder (libjpeg's error, a warning included) and then goes to
// sharp, so its DataError is the one every bad file gets, naming the file: a truncated file, and
// one whose entropy-coded data is overwritten.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodeInto } from '../../src/data/images/decode-image.ts';
import { jpegAddon, JPEG_DECODER_ENV } from '../../src/data/images/jpeg-native.ts';
import { jpegPlan } from '../../src/data/images/jpeg-geometry.ts';
import { valueTable } from '../../src/data/images/place-row.ts';
import { DataError } from '../../src/shared/errors.ts';
import { nativeSkip } from '../helpers/native.ts';
import { photoJpeg, sharp, uint8Spec } from '../helpers/photo-jpegs.ts';

const skip = nativeSkip(jpegAddon().reason ?? false);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jpeg-bad-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const spec = uint8Spec(64, 3, 'crop');

async function errorOf(file: string, decoder: 'native' | 'sharp'): Promise<DataError> {
  if (decoder === 'sharp') process.env[JPEG_DECODER_ENV] = 'sharp';
  try {
    await decodeInto(sharp, file, spec, 0, 0, valueTable(spec), new Uint8Array(64 * 64 * 3));
  } catch (err) {
    assert.ok(err instanceof DataError);
    return err;
  } finally {
    delete process.env[JPEG_DECODER_ENV];
  }
  assert.fail(`${file} decoded`);
}

test("truncated and overwritten JPEGs: the native decoder throws, the DataError is sharp path's, naming the file", { skip }, async () => {
  const jpeg = await photoJpeg(300, 200);
  const overwritten = Buffer.from(jpeg);
  overwritten.fill(0xff, jpeg.length >> 1, (jpeg.length >> 1) + 64); // a run of marker bytes in the scan
  for (const [name, bytes] of [
    ['truncated.jpg', jpeg.subarray(0, jpeg.length >> 1)],
    ['overwritten.jpg', overwritten],
  ] as const) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    const { addon } = jpegAddon();
    const plan = jpegPlan(300, 200, spec, null);
    assert.throws(() => addon!.decode(bytes, new Uint8Array(64 * 64 * 3), 3, plan.denom, plan.axes, 64, 64), /./, `${name}: libjpeg says it is damaged`);
    const native = await errorOf(file, 'native');
    assert.ok(native.message.startsWith(`cannot decode ${file} (${bytes.length} bytes): `), native.message);
    assert.deepEqual([native.message, native.hint], [(await errorOf(file, 'sharp')).message, (await errorOf(file, 'sharp')).hint]);
  }
});
