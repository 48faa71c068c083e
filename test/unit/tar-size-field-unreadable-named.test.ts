// A tar header whose size field cannot be a size is a DataError that says which kind of wrong it
// is, naming the shard and the header's byte: a base-256 size past 2^53 - 1 (no file is that
// large), a negative base-256 size, octal text with other characters (shown, NULs escaped).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHeader } from '../../src/data/shards/tar-header.ts';
import { DataError } from '../../src/shared/errors.ts';
import { tarHeader } from '../helpers/tar-blocks.ts';

const header = (size: number[]) => tarHeader({ size });

const refused = (size: number[], message: RegExp) =>
  assert.throws(
    () => parseHeader(header(size), 'data/s-0.tar', 1536),
    (e: unknown) => e instanceof DataError && /^shard data\/s-0\.tar: the tar header at byte 1536: /.test(e.message) && message.test(e.message),
  );

test('a readable size still reads (the header built here is a valid one)', () => {
  assert.equal(parseHeader(header([...Buffer.from('00000001750\0')]), 'data/s-0.tar', 0).size, 1000);
});

test('a base-256 size of 2^53 bytes or more: too large for any file, said so', () => {
  refused([0x80, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0], /its size field \(base-256\) is 2\^53 bytes or more/);
});

test('a negative base-256 size: said so', () => {
  refused([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe], /its size field is negative \(base-256\)/);
});

test('octal text with another character: the field shown, NULs escaped', () => {
  refused([...Buffer.from('0000000017a'), 0], /its size field is not an octal number \('0000000017a\\0'\)/);
});
