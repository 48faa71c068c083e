// WebDataset tar shards for tests, written by an independent writer (webdataset-writer.py: Python's
// own tarfile module, run by the system's /usr/bin/python3), and digit shards made from the same
// mnist PNGs an image folder of the tests holds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DigitFolder } from './digit-images.ts';

export interface TarFile {
  name: string;
  data: Uint8Array | string;
}
export interface TarShard {
  path: string;
  format?: 'pax' | 'gnu' | 'ustar';
  members: TarFile[];
}

const WRITER = path.join(import.meta.dirname, 'webdataset-writer.py');

/** Writes each shard's members, in order, with Python's tarfile. */
export function writeTarShards(shards: TarShard[]): void {
  const json = shards.map((s) => ({ ...s, members: s.members.map((m) => ({ name: m.name, data: Buffer.from(m.data).toString('base64') })) }));
  execFileSync('/usr/bin/python3', [WRITER], { input: JSON.stringify({ shards: json }), stdio: ['pipe', 'inherit', 'inherit'] });
}

/** The digits of `folder`, in its index order, as `shards` shards `<dir>/train-00000k.tar` (consecutive runs), each a .png and a .cls (and a .txt, a part of unknown extension, with `captions`). */
export function writeDigitTars(folder: DigitFolder, dir: string, shards: number, captions = false): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const per = Math.ceil(folder.count / shards);
  const out = Array.from({ length: shards }, (_, k) => ({
    path: path.join(dir, `train-${String(k).padStart(6, '0')}.tar`),
    members: folder.files.slice(k * per, (k + 1) * per).flatMap((f, i) => {
      const key = `d${String(k * per + i).padStart(6, '0')}`;
      return [
        { name: `${key}.png`, data: fs.readFileSync(f) },
        { name: `${key}.cls`, data: String(folder.labels[k * per + i]!) },
        ...(captions ? [{ name: `${key}.txt`, data: `a handwritten ${folder.labels[k * per + i]!}` }] : []),
      ];
    }),
  }));
  writeTarShards(out);
  return out.map((s) => s.path);
}
