// WebDataset shards: POSIX ustar tar files <prefix>-000000.tar, each sample two consecutive
// members, <key>.<ext> (the image file's bytes, under its own extension) and <key>.cls (the class
// index as decimal text), the key a zero-padded running number, unique across the shards. Each
// member is a 512-byte header and its data padded to 512 bytes; two zero blocks end the file.
// Names longer than ustar's 100-byte name field are refused rather than cut.
import { MgpuError } from '../../shared/errors.ts';
import type { ShardFormat } from './write-format.ts';

const BLOCK = 512;
const MAX_SIZE = 0o77777777777; // 11 octal digits

/** `n` as `width - 1` octal digits and a NUL, as ustar's numeric fields are. */
function octal(header: Buffer, at: number, width: number, n: number): void {
  header.write(`${n.toString(8).padStart(width - 1, '0')}\0`, at, width, 'ascii');
}

/** The ustar header of a regular file `name` of `size` bytes. */
export function tarHeader(name: string, size: number, mtime: number): Buffer {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length > 100)
    throw new MgpuError('E_USAGE', `the tar member name ${JSON.stringify(name)} is ${bytes.length} bytes, more than ustar's 100`, {
      hint: 'a shorter --prefix or file extension; member names are <key>.<extension>',
    });
  if (size > MAX_SIZE) throw new MgpuError('E_DATA', `${name}: ${size} bytes, more than a ustar member holds (8 GiB)`, { hint: 'leave the file out' });
  const h = Buffer.alloc(BLOCK);
  bytes.copy(h, 0);
  octal(h, 100, 8, 0o644); // mode
  octal(h, 108, 8, 0); // uid
  octal(h, 116, 8, 0); // gid
  octal(h, 124, 12, size);
  octal(h, 136, 12, Math.max(0, Math.floor(mtime)));
  h.fill(' ', 148, 156); // the checksum field counts as spaces while it is summed
  h.write('0', 156, 'ascii'); // a regular file
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/** One member: its header, its data, zeros up to the next block. */
export function tarMember(name: string, data: Buffer, mtime: number): Buffer[] {
  const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
  return [tarHeader(name, data.length, mtime), data, Buffer.alloc(pad)];
}

export const WEBDATASET_FORMAT: ShardFormat = {
  name: 'webdataset',
  encode: (s) => [...tarMember(`${s.key}.${s.ext}`, s.bytes, s.mtime), ...tarMember(`${s.key}.cls`, Buffer.from(String(s.label)), s.mtime)],
  trailer: Buffer.alloc(2 * BLOCK),
  fileName: (prefix, index) => `${prefix}-${String(index).padStart(6, '0')}.tar`,
  isShard: (name) => name.endsWith('.tar'),
  describes: {
    '<key>.<ext>': 'the image file, as it is, under its own extension (jpg, jpeg, png, webp, ...)',
    '<key>.cls': 'the class index, 0-based, into classes, as decimal text',
  },
};
