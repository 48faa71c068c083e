// A mapped .npy column copies the same bytes for any rows as the file read whole into memory
// (the reference is the in-memory gather of readNpy's array, indexed by hand), for each dtype,
// through the mmap addon and, with it turned off (MGPU_MMAP=0, in a child process), through pread.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { mappedNpy } from '../../src/data/mapped-npy.ts';
import { readNpy, writeNpy, type NdArray } from '../../src/shared/npy.ts';

const here = path.dirname(new URL(import.meta.url).pathname);

function files(dir: string): string[] {
  const n = 37;
  const arrays: [string, NdArray][] = [
    ['f.npy', { dtype: 'float32', shape: [n, 3, 2], data: Float32Array.from({ length: n * 6 }, (_, i) => i * 0.25 - 7) }],
    ['i.npy', { dtype: 'int32', shape: [n], data: Int32Array.from({ length: n }, (_, i) => i * 1000 - 3) }],
    ['u.npy', { dtype: 'uint8', shape: [n, 5], data: Uint8Array.from({ length: n * 5 }, (_, i) => (i * 7) % 256) }],
  ];
  return arrays.map(([name, a]) => {
    writeNpy(path.join(dir, name), a);
    return path.join(dir, name);
  });
}

/** Rows `rows` of the file read whole, copied one value at a time. */
function expected(file: string, rows: number[]): number[] {
  const a = readNpy(file);
  const per = a.data.length / a.shape[0]!;
  return rows.flatMap((r) => [...a.data.subarray(r * per, (r + 1) * per)]);
}

function gathered(file: string, rows: number[]): number[] {
  const c = mappedNpy(file, 'data.train', true);
  const per = c.shape.slice(1).reduce((p, d) => p * d, 1);
  const size = c.dtype === 'uint8' ? 1 : 4;
  const out = new Uint8Array(3 + rows.length * per * size); // at an odd offset: the slab's parts are packed
  const wrote = c.gather(Uint32Array.from(rows), out, 3);
  assert.equal(wrote, rows.length * per * size);
  const bytes = out.slice(3);
  const View = c.dtype === 'float32' ? Float32Array : c.dtype === 'int32' ? Int32Array : Uint8Array;
  return [...new View(bytes.buffer)];
}

const ROWS = [5, 6, 7, 0, 36, 36, 12, 1, 2, 3, 35];

test('mapped rows equal the rows of the file read whole, for float32, int32 and uint8', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mapped-npy-'));
  try {
    for (const f of files(dir)) {
      const c = mappedNpy(f, 'data.train', true);
      assert.equal(c.kind, 'mapped', f);
      assert.deepEqual(gathered(f, ROWS), expected(f, ROWS), f);
      assert.deepEqual([...c.toArray().data], [...readNpy(f).data], `${f}: toArray`);
    }
    assert.throws(() => mappedNpy(files(dir)[1]!, 'data.train', true).gather(Uint32Array.of(37), new Uint8Array(4), 0), /row index 37 is outside \[0, 37\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without the mmap addon (MGPU_MMAP=0) the rows are read with pread, the same bytes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mapped-npy-pread-'));
  try {
    const list = files(dir);
    const script = path.join(dir, 'child.ts');
    fs.writeFileSync(
      script,
      `import { mappedNpy } from ${JSON.stringify(path.resolve(here, '../../src/data/mapped-npy.ts'))};
       const out = {};
       for (const f of ${JSON.stringify(list)}) {
         const c = mappedNpy(f, 'data.train', true);
         const bytes = new Uint8Array(c.shape.slice(1).reduce((p, d) => p * d, c.dtype === 'uint8' ? 1 : 4) * ${ROWS.length});
         c.gather(Uint32Array.from(${JSON.stringify(ROWS)}), bytes, 0);
         out[f] = { kind: c.kind, bytes: Buffer.from(bytes).toString('base64') };
       }
       console.log(JSON.stringify(out));`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', env: { ...process.env, MGPU_MMAP: '0' } });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout) as Record<string, { kind: string; bytes: string }>;
    for (const f of list) {
      const c = mappedNpy(f, 'data.train', true);
      const want = new Uint8Array(Buffer.from(got[f]!.bytes, 'base64').length);
      c.gather(Uint32Array.from(ROWS), want, 0); // this process maps; the child read
      assert.equal(got[f]!.kind, 'mapped');
      assert.deepEqual(Buffer.from(got[f]!.bytes, 'base64'), Buffer.from(want), f);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a NaN in a mapped float32 file is named (feature, sample, file) when its row is copied, not before', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mapped-npy-nan-'));
  try {
    const x = new Float32Array(8 * 3).fill(1);
    x[6 * 3 + 1] = Infinity;
    writeNpy(path.join(dir, 'x.npy'), { dtype: 'float32', shape: [8, 3], data: x });
    const c = mappedNpy(path.join(dir, 'x.npy'), 'data.train', true);
    assert.doesNotThrow(() => c.gather(Uint32Array.of(0, 1, 2), new Uint8Array(36), 0));
    assert.throws(() => c.gather(Uint32Array.of(5, 6), new Uint8Array(24), 0), /data\.train: feature 1 of sample 6 in .*x\.npy is Infinity/);
    // Labels are not features: not checked here.
    assert.doesNotThrow(() => mappedNpy(path.join(dir, 'x.npy'), 'data.train', false).gather(Uint32Array.of(6), new Uint8Array(12), 0));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
