// Each sample of a tar shard is checked as the shard is indexed: a sample without its image part,
// without its label part, with a part twice, or whose .cls is not a non-negative integer, is a
// DataError naming the shard and the sample key (and the member).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards, type TarFile } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-parts');
const keys = { image: ['jpg', 'png'], label: 'cls' };
const good: TarFile[] = [
  { name: 'ok.jpg', data: 'img' },
  { name: 'ok.cls', data: '1' },
];

function scan(name: string, members: TarFile[]): () => unknown {
  const file = path.join(dir, `${name}.tar`);
  writeTarShards([{ path: file, members: [...good, ...members] }]);
  return () => scanTarShard(file, fs.statSync(file).size, keys);
}

test('a sample without its image names the shard, the key and the parts it has', () => {
  assert.throws(
    scan('no-image', [
      { name: 'k1.cls', data: '0' },
      { name: 'k1.json', data: '{}' },
    ]),
    {
      code: 'E_DATA',
      message: new RegExp(`^shard ${dir}/no-image\\.tar sample k1: it has no image part \\(\\.jpg or \\.png; it has \\.cls \\.json\\)$`),
    },
  );
});

test('a sample without its label', () => {
  assert.throws(scan('no-label', [{ name: 'k2.png', data: 'img' }]), {
    code: 'E_DATA',
    message: /no-label\.tar sample k2: it has no label part \(\.cls; it has \.png\)$/,
  });
});

test('a part twice in one sample names both members', () => {
  assert.throws(
    scan('twice', [
      { name: 'k3.jpg', data: 'a' },
      { name: 'k3.cls', data: '0' },
      { name: 'k3.jpg', data: 'b' },
    ]),
    {
      code: 'E_DATA',
      message: /twice\.tar sample k3: its part \.jpg is there twice \(members k3\.jpg at byte 2048 and k3\.jpg at byte 4096\)$/,
    },
  );
});

test('a .cls that is not a non-negative integer', () => {
  for (const bad of ['-1', 'seven', '1.5', '']) {
    assert.throws(
      scan('bad-cls', [
        { name: 'k4.jpg', data: 'a' },
        { name: 'k4.cls', data: bad },
      ]),
      {
        code: 'E_DATA',
        message: `shard ${dir}/bad-cls.tar sample k4: its label k4.cls holds ${JSON.stringify(bad)}, not a non-negative integer`,
      },
    );
  }
});
