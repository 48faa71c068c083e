// data.<split> with type: images, a folder of class folders or a CSV list of path,label, and
// its decoding (size, channels, resize, rescale, normalize) and training augmentation.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../shared/errors.ts';
import { fail, int, oneOf, orNull, real, Section, text } from '../checker.ts';
import type { ImageAugment, ImageSource } from '../types.ts';

export const IMAGE_SOURCE_KEYS = ['type', 'dir', 'list', 'size', 'channels', 'resize', 'rescale', 'normalize', 'augment', 'orientation'] as const;
const AUGMENT_KEYS = ['flip', 'crop', 'randomResizedCrop', 'brightness', 'contrast'];
export const IMAGE_DEFAULTS = { channels: 3 as const, resize: 'stretch' as const, rescale: 'unit' as const };

/** The keys of how an image is decoded and augmented, shared with the sources whose records hold images (tfrecord). */
export const IMAGE_DECODE_KEYS = ['size', 'channels', 'resize', 'rescale', 'normalize', 'augment', 'orientation'] as const;
export type ImageDecoding = Omit<ImageSource, 'type' | 'dir' | 'list'>;

/** One images source. */
export function imageSource(raw: Record<string, unknown>, path: string, baseDir: string): ImageSource {
  const s = Section.open(raw, path, IMAGE_SOURCE_KEYS);
  const given = (k: string) => s.has(k) && s.obj[k] !== null;
  if (given('dir') === given('list'))
    throw new ConfigError(
      path,
      given('dir') ? 'sets both dir and list' : 'needs dir or list',
      'dir: a folder with one subfolder per class; list: a CSV of path,label',
    );
  return { type: 'images', dir: given('dir') ? folder(s, baseDir) : null, list: given('list') ? s.file('list', baseDir) : null, ...imageDecoding(s) };
}

/** The decoding keys of an image source (IMAGE_DECODE_KEYS) in `s`. */
export function imageDecoding(s: Section): ImageDecoding {
  const given = (k: string) => s.has(k) && s.obj[k] !== null;
  const channels = s.opt('channels', channelsCheck, IMAGE_DEFAULTS.channels);
  return {
    size: s.req('size', sizeCheck) as [number, number],
    channels,
    resize: s.opt('resize', oneOf(['stretch', 'crop', 'pad'] as const), IMAGE_DEFAULTS.resize),
    rescale: s.opt('rescale', oneOf(['unit', 'none'] as const), IMAGE_DEFAULTS.rescale),
    normalize: given('normalize') ? normalize(s, channels) : null,
    augment: given('augment') ? augment(s.obj.augment, s.at('augment')) : null,
    orientation: s.opt('orientation', oneOf(['stored', 'exif'] as const), 'stored'),
  };
}

const channelsCheck = { expected: '1 (grey) or 3 (RGB)', test: (v: unknown): v is 1 | 3 => v === 1 || v === 3 };
const sizeCheck = {
  expected: 'a list [height, width] of positive integers',
  test: (v: unknown): v is number[] =>
    Array.isArray(v) && v.length === 2 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 1 && (x as number) <= 65535),
};

function folder(s: Section, baseDir: string): string {
  const p = resolve(baseDir, s.req('dir', text));
  if (!existsSync(p)) throw new ConfigError(s.at('dir'), `folder not found: ${p}`, `relative paths are resolved against ${baseDir}`);
  if (!statSync(p).isDirectory())
    throw new ConfigError(s.at('dir'), `${p} is a file, not a folder`, 'dir is a folder with one subfolder per class; a CSV of path,label is list:');
  return p;
}

function normalize(s: Section, channels: number): { mean: number[]; std: number[] } {
  const n = Section.open(s.obj.normalize, s.at('normalize'), ['mean', 'std']);
  const list = (key: 'mean' | 'std', ok: (x: number) => boolean, what: string): number[] => {
    const v = n.req(key, { expected: `a list of ${channels} numbers (one per channel)`, test: (x): x is number[] => Array.isArray(x) });
    if (v.length !== channels) fail(n.at(key), `a list of ${channels} numbers (one per channel, channels: ${channels})`, v);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x) || !ok(x)) fail(`${n.at(key)}[${i}]`, what, x);
    });
    return [...v];
  };
  return { mean: list('mean', () => true, 'a finite number'), std: list('std', (x) => x > 0, 'a finite number > 0') };
}

const pair = (what: string, ok: (a: number, b: number) => boolean) => ({
  expected: `a list [low, high] of ${what}, low <= high`,
  test: (v: unknown): v is [number, number] =>
    Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) && v[0] <= v[1] && ok(v[0] as number, v[1] as number),
});

function augment(raw: unknown, path: string): ImageAugment {
  const a = Section.open(raw, path, AUGMENT_KEYS);
  const crop = a.has('crop') && a.obj.crop !== null ? { padding: Section.open(a.obj.crop, a.at('crop'), ['padding']).req('padding', int(0, 1024)) } : null;
  const rrc = a.has('randomResizedCrop') && a.obj.randomResizedCrop !== null ? resizedCrop(a) : null;
  if (crop && rrc)
    throw new ConfigError(
      a.at('crop'),
      'is set, but so is randomResizedCrop',
      'one crop per sample: the padded crop (CIFAR) or the random resized crop (ImageNet)',
    );
  const jitter = real('a number in [0, 1]', (x) => x >= 0 && x <= 1);
  const flip = a.has('flip') && a.obj.flip !== null && a.obj.flip !== false ? a.opt('flip', oneOf(['horizontal'] as const), 'horizontal') : null;
  return { flip, crop, randomResizedCrop: rrc, brightness: a.opt('brightness', orNull(jitter), null), contrast: a.opt('contrast', orNull(jitter), null) };
}

function resizedCrop(a: Section): ImageAugment['randomResizedCrop'] {
  const r = Section.open(a.obj.randomResizedCrop, a.at('randomResizedCrop'), ['scale', 'ratio']);
  const scale = r.opt(
    'scale',
    pair('fractions of the area in (0, 1]', (lo, hi) => lo > 0 && hi <= 1),
    [0.08, 1] as [number, number],
  );
  const ratio = r.opt(
    'ratio',
    pair('aspect ratios (width / height) > 0', (lo) => lo > 0),
    [3 / 4, 4 / 3] as [number, number],
  );
  return { scale, ratio };
}
