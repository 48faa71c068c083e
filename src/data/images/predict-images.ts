// `predict --input` with images: a folder (every image below it, at any depth, sorted by code
// point) or image files, decoded as the config's image source (images, or shards of images)
// decodes them (its size, channels, resize, rescale, normalize; never augmented); the CSV output
// names each file.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/types.ts';
import { MgpuError } from '../../shared/errors.ts';
import { imageDecodingSource, NO_DECODING_HINT } from '../predict-shards.ts';
import type { NamedArray } from '../rows.ts';
import { decodeSpec, rowBytesOf } from './decode-spec.ts';
import { imagesBelow } from './folder-index.ts';
import { ImagePipeline } from './image-pipeline.ts';
import { imageOptions, imageThreads } from './load-images.ts';
import { MadeColumn } from './made-column.ts';
import { PathTable } from './path-table.ts';
import { imageExtensions, requireSharp } from './sharp-module.ts';

export interface ImageInput {
  input: NamedArray;
  pipeline: ImagePipeline;
  files: string[]; // each row's file, resolved (a folder's: below it)
  given: string[]; // each row's file as --input gave it (relative stays relative), for the CSV
}

/** The rows of the images `values` name, decoded by the config's images source (data.train's, else data.eval's). */
export function imageInput(cfg: Config, values: readonly string[], cwd = process.cwd(), what = '--input'): ImageInput {
  const src = imageDecodingSource(cfg);
  if (!src)
    throw new MgpuError('E_USAGE', `${what} ${values.join(' ')}: images, but the config has no image source to say how to decode them (size, channels)`, {
      hint: NO_DECODING_HINT,
    });
  const exts = imageExtensions(requireSharp(what));
  const byValue = values.map((v) => ({ v, files: imageFiles(path.resolve(cwd, v), exts, what) }));
  const files = byValue.flatMap((b) => b.files);
  if (files.length === 0) throw new MgpuError('E_DATA', `${what} ${values.join(' ')}: no images (looked for ${exts.join(' ')}, any case)`);
  const spec = decodeSpec(src, false, cfg.training.seed, 'predict');
  const pipeline = new ImagePipeline(PathTable.of('', files), spec, imageThreads(imageOptions(cfg)), `images ${values.join(' ')}: ${files.length} files`);
  const column = new MadeColumn(spec.dtype, [files.length, spec.height, spec.width, spec.channels], pipeline, rowBytesOf(spec));
  const given = byValue.flatMap((b) => b.files.map((f) => asGiven(b.v, path.resolve(cwd, b.v), f)));
  return { input: { name: '', array: column, file: values.join(' ') }, pipeline, files, given };
}

/** A file found from --input `value` (resolved: `resolved`) as the CSV names it: the value as written, then the path below it. */
function asGiven(value: string, resolved: string, file: string): string {
  return file === resolved ? value : `${value.replace(/[\\/]+$/, '')}${path.sep}${path.relative(resolved, file)}`;
}

/** A file as it is, a folder's images below it: the walk training gives a class folder (symlinks followed, hidden ones skipped). */
function imageFiles(p: string, exts: readonly string[], what: string): string[] {
  if (!fs.existsSync(p)) throw new MgpuError('E_USAGE', `${what} ${p}: no such file or folder`);
  return fs.statSync(p).isDirectory() ? imagesBelow(p, exts) : [p];
}

/** predictions.csv for images: `path,class,score`, one line per file, in input order. */
export function imagePredictionsCsv(files: readonly string[], classCsv: string): string {
  const field = (t: string) => (/[",\r\n]/.test(t) || t.trim() !== t ? `"${t.replace(/"/g, '""')}"` : t);
  const lines = classCsv.trimEnd().split('\n');
  return `${['path,class,score', ...lines.slice(1).map((l, i) => `${field(files[i]!)},${l}`)].join('\n')}\n`;
}
