import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { flatten, slabLayout } from '../../src/shared/layout.ts';
import { Slab } from '../../src/shared/slab.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const flat = flatten([{ name: 'w', shape: [1000], dtype: 'float32', trainable: true }]);

test('the slab file is unlinked at birth and mode 0600 while it existed', () => {
  const dir = tempDir('slab');
  const slab = Slab.create(dir);
  assert.deepEqual(fs.readdirSync(dir), []);
  const st = fs.fstatSync(slab.fd);
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(st.nlink, 0);
  slab.close();
});

test('positional writes read back from another descriptor number of the same file', () => {
  const dir = tempDir('slab');
  const slab = Slab.create(dir);
  const layout = slabLayout(flat, 2, 100, 64, 42);
  slab.resize(layout, dir);
  const data = Float32Array.from({ length: 1000 }, (_, i) => i * 0.5);
  slab.write(layout.grads[1]!, data);
  const other = new Slab(fs.openSync(`/proc/self/fd/${slab.fd}`, 'r+'));
  const back = new Float32Array(1000);
  other.read(layout.grads[1]!, back);
  assert.deepEqual(back, data);
  other.checkHeader(layout);
  slab.close();
  other.close();
});

test('a worker with another layout is refused by the header check', () => {
  const dir = tempDir('slab');
  const slab = Slab.create(dir);
  slab.resize(slabLayout(flat, 2, 100, 64, 42), dir);
  assert.throws(() => slab.checkHeader(slabLayout(flat, 2, 100, 64, 43)), /layout hash is 42, this worker expected 43/);
  slab.close();
});

test('a missing directory is an E_SHM error that says how to fix it', () => {
  assert.throws(
    () => Slab.create('/nonexistent/shm'),
    (e: Error & { code?: string; hint?: string }) => e.code === 'E_SHM' && /does not exist/.test(e.message) && /devices\.shmDir/.test(e.hint ?? ''),
  );
});
