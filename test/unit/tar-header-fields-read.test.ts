// One tar header read field by field, on headers built here byte by byte: a checksum that does
// not match is "not a tar file" only for the first block of a shard without the ustar magic,
// else the header's byte and both sums are named (the field said unreadable where it is); ustar's
// prefix is joined to the name for POSIX headers only (GNU's 'ustar  ' magic has no prefix); a
// name filling its 100 bytes has no NUL; pax 'path' records are read by their length, the last
// one kept, other keys and records that do not fit ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHeader, paxPath } from '../../src/data/shards/tar-header.ts';
import { DataError } from '../../src/shared/errors.ts';
import { tarHeader, type HeaderFields } from '../helpers/tar-blocks.ts';

const header = (f: HeaderFields): Buffer => tarHeader({ size: '00000000012', ...f });

const fails = (block: Uint8Array, offset: number, message: string) =>
  assert.throws(
    () => parseHeader(block, 's.tar', offset),
    (e: unknown) => e instanceof DataError && e.message === message,
  );

test('a checksum off by one: named with both sums, at the first block (ustar magic there) and later', () => {
  const h = header({ checksum: 1 });
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  for (const at of [0, 1536])
    fails(h, at, `shard s.tar: the tar header at byte ${at}: its checksum does not match (field ${sum + 1}, bytes sum to ${sum}): a damaged header`);
});

test('an unreadable checksum field is said so', () => {
  const h = header({ checksum: '01x345\0 ' });
  assert.throws(() => parseHeader(h, 's.tar', 512), /: its checksum does not match \(field unreadable, bytes sum to \d+\)/);
});

test('the first block without the ustar magic and a bad checksum: not a tar file; later, a damaged header', () => {
  const h = header({ magic: 'other\0\0\0', checksum: 1 });
  fails(h, 0, 'shard s.tar is not a tar file (its first 512 bytes are not a tar header: no ustar magic, checksum does not match)');
  assert.throws(
    () => parseHeader(h, 's.tar', 512),
    (e: unknown) => e instanceof DataError && e.message.startsWith('shard s.tar: the tar header at byte 512: its checksum does not match'),
  );
});

test("ustar's prefix joins the name for POSIX headers; GNU's magic has no prefix field", () => {
  assert.equal(parseHeader(header({ name: 'c.jpg', prefix: 'a/b' }), 's.tar', 0).name, 'a/b/c.jpg');
  assert.equal(parseHeader(header({ name: 'c.jpg' }), 's.tar', 0).name, 'c.jpg');
  assert.equal(parseHeader(header({ name: 'c.jpg', prefix: 'a/b', magic: 'ustar  \0' }), 's.tar', 0).name, 'c.jpg');
  assert.equal(parseHeader(header({ name: 'c.jpg', prefix: 'a/b', magic: 'ustar\x00xx' }), 's.tar', 0).name, 'a/b/c.jpg');
});

test('a name that fills its 100 bytes, with no NUL, is read whole; the type and the size are read', () => {
  const name = `${'n'.repeat(96)}.jpg`;
  const h = parseHeader(header({ name, size: '00000001750' }), 's.tar', 0);
  assert.deepEqual(h, { name, type: '0', size: 1000 });
});

test('pax records: path by its length, the last one kept, other keys and records that do not fit ignored', () => {
  const rec = (kv: string) => {
    let len = kv.length + 3;
    if (String(len).length + kv.length + 2 !== len) len += 1;
    return `${len} ${kv}\n`;
  };
  const pax = (s: string) => Uint8Array.from(Buffer.from(s, 'utf8'));
  assert.equal(paxPath(pax(rec('path=a/first.jpg') + rec('mtime=1') + rec('path=b/second.jpg') + rec('linkpath=x'))), 'b/second.jpg');
  assert.equal(paxPath(pax(rec('mtime=1') + rec('uid=0'))), null);
  assert.equal(paxPath(pax(`${rec('path=ok.jpg')}99 path=too-long\n`)), 'ok.jpg');
  assert.equal(paxPath(pax(`${rec('path=ok.jpg')}0 path=x\n`)), 'ok.jpg');
  assert.equal(paxPath(pax(`${rec('path=ok.jpg')}nospace`)), 'ok.jpg');
});
