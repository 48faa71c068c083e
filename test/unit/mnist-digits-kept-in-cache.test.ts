// The mnist digits decoded from the package's JSON are kept in the cache folder and read back by
// the next process, to the same bytes; a kept file cut short is decoded again and rewritten; and
// the kept file is what a later process reads (a pixel changed in it shows in the digits).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/train-fixture.ts';

const MNIST = fileURLToPath(new URL('../../src/data/mnist.ts', import.meta.url));
const BYTES = 16 + 10_000 * 784 * 4 + 10_000;

/** A hash of digits [0, 10000) (pixels and class indices) as a fresh process loads them with `cache` as its cache folder. */
function digitsHash(cache: string): string {
  const script = `
    const { createHash } = await import('node:crypto');
    const { loadMnist } = await import(${JSON.stringify(MNIST)});
    const { features, labels } = loadMnist(0, 10000, 'index', 'data.train');
    const h = createHash('sha256');
    h.update(new Uint8Array(features.data.buffer, features.data.byteOffset, features.data.byteLength));
    h.update(new Uint8Array(labels.data.buffer, labels.data.byteOffset, labels.data.byteLength));
    process.stdout.write(h.digest('hex'));`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, MGPU_CACHE_DIR: cache },
  });
}

const keptFiles = (cache: string) =>
  fs.existsSync(path.join(cache, 'mnist')) ? fs.readdirSync(path.join(cache, 'mnist')).map((f) => path.join(cache, 'mnist', f)) : [];

test('decoded once, kept, read back to the same bytes; a kept file cut short is decoded again', () => {
  const cache = tempDir('mnist-cache');
  const decoded = digitsHash(cache);
  const kept = keptFiles(cache);
  assert.equal(kept.length, 1, 'one kept file');
  assert.equal(fs.statSync(kept[0]!).size, BYTES);
  assert.equal(digitsHash(cache), decoded, 'read back from the cache: other digits');
  fs.truncateSync(kept[0]!, BYTES - 1);
  assert.equal(digitsHash(cache), decoded, 'a kept file cut short was trusted');
  assert.equal(fs.statSync(kept[0]!).size, BYTES, 'not rewritten whole');
});

test('a later process reads the kept file (one pixel changed in it shows)', () => {
  const cache = tempDir('mnist-cache-read');
  const decoded = digitsHash(cache);
  const [kept] = keptFiles(cache);
  const fd = fs.openSync(kept!, 'r+');
  const one = new Float32Array([0.5]);
  fs.writeSync(fd, new Uint8Array(one.buffer), 0, 4, 16 + 4 * 1234);
  fs.closeSync(fd);
  assert.notEqual(digitsHash(cache), decoded);
});
