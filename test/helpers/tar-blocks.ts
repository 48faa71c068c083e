// Tar archives built block by block for tests of the tar reader (an independent writer: the
// project's own shard writer is not used to check its reader). One 512-byte ustar header with
// its checksum summed, and a member's data padded to whole blocks.
export interface HeaderFields {
  name?: string; // default 'a.jpg'
  type?: string; // the type letter at 156, default '0'
  /** A size in bytes (written in octal), the field's text (a NUL added), or its 12 bytes as they are. */
  size?: number | string | number[];
  magic?: string; // 8 bytes at 257: 'ustar\0' + '00' (POSIX, the default) or 'ustar  \0' (GNU)
  prefix?: string; // ustar's prefix field, at 345
  checksum?: string | number; // the checksum field's text, or a number added to the right sum
}

export function tarHeader(f: HeaderFields = {}): Buffer {
  const b = Buffer.alloc(512);
  b.write(f.name ?? 'a.jpg', 0, 'latin1');
  b.write('0000644\0', 100, 'latin1');
  const size = f.size ?? 10;
  if (Array.isArray(size)) Buffer.from(size).copy(b, 124);
  else b.write(`${typeof size === 'number' ? size.toString(8).padStart(11, '0') : size}\0`, 124, 'latin1');
  b.write(f.type ?? '0', 156, 'latin1');
  b.write(f.magic ?? 'ustar\x0000', 257, 'latin1');
  if (f.prefix) b.write(f.prefix, 345, 'latin1');
  b.write('        ', 148, 'latin1');
  let sum = 0;
  for (const x of b) sum += x;
  b.write(typeof f.checksum === 'string' ? f.checksum : `${(sum + (f.checksum ?? 0)).toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return b;
}

/** `n` bytes of member data, padded with zeros to whole 512-byte blocks. */
export const tarData = (n: number): Buffer => Buffer.concat([Buffer.alloc(n, 0x61), Buffer.alloc((512 - (n % 512)) % 512)]);
