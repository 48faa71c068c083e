// A mapped .npy column reads the file it opened at start-up for as long as it lives, mapped or
// (MGPU_MMAP=0) with pread, and both say the same when that file is cut short: a file renamed
// over it does not change the rows it gives; a file cut inside its last page (whose lost bytes a
// mapping would read as zeros, with no fault) is an E_DATA naming it and where it ends now, from
// gather and from toArray. This file is also the MGPU_MMAP=0 child's code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mappedNpy } from '../../src/data/mapped-npy.ts';
import { loadMmap } from '../../src/shared/mapped-memory.ts';
import { writeNpy, type NdArray } from '../../src/shared/npy.ts';
import { execArgvFor } from '../../src/shared/runtime.ts';

const ROWS = 300;
const PER = 5;
const array = (offset: number): NdArray => ({ dtype: 'float32', shape: [ROWS, PER], data: Float32Array.from({ length: ROWS * PER }, (_, i) => i + offset) });

function failure(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  return { code: 'none', message: 'did not throw' };
}

interface Seen {
  mapped: boolean;
  replacedRows: number[];
  gather: { code: string; message: string };
  toArray: { code: string; message: string };
  cutTo: number;
}

/** What a column sees of a file renamed over its own and of its file cut inside the last page. */
function observe(dir: string): Seen {
  const kept = path.join(dir, 'kept.npy');
  writeNpy(kept, array(0));
  const before = mappedNpy(kept, 'data.train', true);
  writeNpy(path.join(dir, 'new.npy'), array(1000));
  fs.renameSync(path.join(dir, 'new.npy'), kept);
  const out = new Uint8Array(2 * PER * 4);
  before.gather(Uint32Array.of(0, ROWS - 1), out, 0);

  const cut = path.join(dir, 'cut.npy');
  writeNpy(cut, array(0));
  const column = mappedNpy(cut, 'data.train', false);
  const cutTo = fs.statSync(cut).size - 10; // half of the last row's bytes: inside the file's last page
  fs.truncateSync(cut, cutTo);
  return {
    mapped: loadMmap() !== null,
    replacedRows: [...new Float32Array(out.buffer)],
    gather: failure(() => column.gather(Uint32Array.of(ROWS - 1), new Uint8Array(PER * 4), 0)),
    toArray: failure(() => column.toArray()),
    cutTo,
  };
}

if (process.env.MGPU_NPY_CHANGED_CHILD) {
  process.stdout.write(JSON.stringify(observe(process.env.MGPU_NPY_CHANGED_CHILD)));
  process.exit(0);
}

test('mapped and pread: the file opened at start-up is read though replaced; cut short, the same E_DATA', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mapped-npy-changed-'));
  try {
    fs.mkdirSync(path.join(dir, 'mapped'));
    fs.mkdirSync(path.join(dir, 'pread'));
    const mapped = observe(path.join(dir, 'mapped'));
    const child = spawnSync(process.execPath, [...execArgvFor(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url)], {
      env: { ...process.env, MGPU_MMAP: '0', MGPU_NPY_CHANGED_CHILD: path.join(dir, 'pread') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const pread = JSON.parse(child.stdout) as Seen;
    const first = array(0).data;
    assert.equal(pread.mapped, false);
    for (const [how, seen] of [
      ['mapped', mapped],
      ['pread', pread],
    ] as const) {
      const file = path.join(dir, how, 'cut.npy');
      assert.deepEqual(seen.replacedRows, [...first.subarray(0, PER), ...first.subarray((ROWS - 1) * PER)], `${how}: the rows of the file it opened`);
      const expected = { code: 'E_DATA', message: `${file}: the file ended at byte ${seen.cutTo} (it shrank while the run was reading it)` };
      assert.deepEqual(seen.gather, expected, `${how}: gather`);
      assert.deepEqual(seen.toArray, expected, `${how}: toArray`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
