// The config hash the machines of a run compare at start-up holds the JPEG decoder where a split
// decodes images: a machine with the native decoder and one without (or with MGPU_JPEG_DECODER=sharp)
// hash an images config differently, so they refuse to train together on different pixels; a
// config without images hashes the same whatever the decoder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configHash } from '../../src/coordinator/devices/cluster.ts';
import { decodesImages, jpegAddon } from '../../src/data/images/jpeg-native.ts';
import { nativeSkip } from '../helpers/native.ts';

const skip = nativeSkip(jpegAddon().reason ?? false);
const images = { data: { train: { type: 'images', dir: 'photos' }, eval: null }, training: { steps: 10 } };
const tfrecordImages = { data: { train: { type: 'tfrecord', files: 'x', image: 'image/encoded' }, eval: null } };
const npy = { data: { train: { type: 'npy' }, eval: { type: 'mnist' } }, training: { steps: 10 } };

test('which data decodes images', () => {
  assert.ok(decodesImages(images.data));
  assert.ok(decodesImages(tfrecordImages.data));
  assert.ok(decodesImages({ train: { type: 'npy' }, eval: { type: 'webdataset' } }));
  assert.equal(decodesImages(npy.data), false);
  assert.equal(decodesImages({ train: { type: 'tfrecord', files: 'x', x: {}, y: {} }, eval: null }), false);
});

test('native and sharp machines hash an images config differently, any other config alike', { skip }, () => {
  const sharpOnly = { MGPU_JPEG_DECODER: 'sharp' };
  assert.notEqual(configHash(images, {}), configHash(images, sharpOnly));
  assert.notEqual(configHash(tfrecordImages, {}), configHash(tfrecordImages, sharpOnly));
  assert.equal(configHash(npy, {}), configHash(npy, sharpOnly));
  assert.equal(configHash(images, sharpOnly), configHash({ ...images, devices: { gpus: [1] } }, sharpOnly), 'devices still aside');
});
