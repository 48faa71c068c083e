// The images `mgpu-train shards` converts: an ImageFolder (one subfolder per class) or an image
// list CSV (path,label), indexed exactly as `type: images` indexes them (the same classes, sorted
// the same way, the same files), and each image's bytes read and checked: decoded in full by
// sharp (--check decode, the default: a shard never carries an image training cannot decode) or
// only its header read (--check header), the format named by the decoder, not by the extension.
import fs from 'node:fs';
import { DataError, MgpuError } from '../../shared/errors.ts';
import { extOf, indexFolder, type ImageIndex } from '../images/folder-index.ts';
import { indexList } from '../images/list-index.ts';
import { badImage } from '../images/decode-image.ts';
import { imageExtensions, trySharp, type Sharp } from '../images/sharp-module.ts';

export type ImageCheck = 'decode' | 'header';

export interface ImageSet {
  index: ImageIndex;
  kind: 'folder' | 'list';
  sharp: Sharp;
}

const KEY = 'shards';
export const BAD_IMAGE_HINT = 'replace or remove the file (or its line of the list) and run mgpu-train shards again; no shard was written';

/** The images of `source` (a folder of class folders, or a list CSV), with their classes. */
export function imageSet(source: string): ImageSet {
  const sharp = trySharp();
  if (sharp instanceof Error)
    throw new MgpuError('E_USAGE', `mgpu-train shards reads images with sharp, which cannot be loaded here (${sharp.message.split('\n')[0]})`, {
      hint: 'install it beside mgpu-train: npm install sharp',
    });
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw new MgpuError('E_USAGE', `shards: no such images folder or list: ${source}`, {
      hint: 'give a folder of class folders (photos/cat/1.jpg, photos/dog/2.jpg, ...) or a CSV of path,label lines',
    });
  }
  if (stat.isDirectory()) return { index: indexFolder(source, KEY, imageExtensions(sharp), null), kind: 'folder', sharp };
  return { index: indexList(source, KEY, null), kind: 'list', sharp };
}

export interface ReadImage {
  bytes: Buffer;
  format: string;
  ext: string;
  mtime: number;
}

/** Image `i` of the set, read whole and checked; a file that cannot be read or decoded is a DataError naming it. */
export async function readImage(set: ImageSet, i: number, check: ImageCheck): Promise<ReadImage> {
  const file = set.index.paths.file(i);
  try {
    const [bytes, stat] = await Promise.all([fs.promises.readFile(file), fs.promises.stat(file)]);
    if (bytes.length === 0) throw new DataError(`cannot decode ${file}: the file is empty (0 bytes)`, BAD_IMAGE_HINT);
    const img = set.sharp(bytes, { failOn: 'warning', limitInputPixels: 1 << 28 });
    const { format } = await img.metadata();
    // A full decode into a buffer, as training decodes: sharp's stats(), which streams, let a
    // truncated PNG through about 1 time in 6 with 8 images in flight (measured), raw() never.
    if (check === 'decode') await img.raw().toBuffer();
    return { bytes, format, ext: extOf(file).slice(1) || format, mtime: stat.mtimeMs / 1000 };
  } catch (err) {
    throw badImage(file, err, BAD_IMAGE_HINT);
  }
}
