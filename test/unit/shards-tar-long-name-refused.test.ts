// A tar member name fits ustar's 100-byte name field or is refused, never cut: a name of exactly
// 100 bytes reads back whole with Python's tarfile, one of 101 bytes (counted in UTF-8 bytes, not
// characters) is E_USAGE naming it and its length.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tarMember, WEBDATASET_FORMAT } from '../../src/data/shards/write-tar.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { readTars } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-tar-names');

test('a 100-byte member name is kept whole', () => {
  const names = ['a'.repeat(96) + '.cls', 'é'.repeat(48) + '.jpg'];
  const file = path.join(dir, 'names.tar');
  fs.writeFileSync(file, Buffer.concat([...names.flatMap((n) => tarMember(n, Buffer.from('7'), 0)), WEBDATASET_FORMAT.trailer]));
  assert.deepEqual(
    readTars([file])[0]!.members.map((m) => m.name),
    names,
  );
});

test('a longer name is refused, in bytes', () => {
  for (const name of ['b'.repeat(97) + '.cls', 'é'.repeat(49) + '.jpg'])
    assert.throws(
      () => tarMember(name, Buffer.from('7'), 0),
      (e: unknown) =>
        e instanceof MgpuError &&
        e.code === 'E_USAGE' &&
        e.message === `the tar member name ${JSON.stringify(name)} is ${Buffer.byteLength(name)} bytes, more than ustar's 100`,
    );
});
