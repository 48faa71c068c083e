// `mgpu-train launch` passes mpirun's stderr on line by line without Open MPI's harmless launch
// warning (src/cli/mpirun-stderr.ts): every other line, whole and in order, a line split over
// chunks joined first, an unfinished last line written at the end, and nothing held back once a
// line is complete.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mpirunStderr } from '../../src/cli/mpirun-stderr.ts';

const SETPGID = '[node-a:04711] plm:rsh: Warning: setpgid(4716,4716) failed in parent with errno=Permission denied';

function feed(chunks: string[]): { writes: string[]; afterEachChunk: string[] } {
  const writes: string[] = [];
  const afterEachChunk: string[] = [];
  const out = mpirunStderr((text) => writes.push(text));
  for (const c of chunks) {
    out.push(c);
    afterEachChunk.push(writes.join(''));
  }
  out.end();
  return { writes, afterEachChunk };
}

test("Open MPI's setpgid warning is dropped; every other line passes, whole, in order", () => {
  const { writes } = feed([`error E_DATA: rank 1 (GPU 0): bad row\n${SETPGID}\n`, 'MPI_ABORT was invoked on rank 1\n']);
  assert.equal(writes.join(''), 'error E_DATA: rank 1 (GPU 0): bad row\nMPI_ABORT was invoked on rank 1\n');
});

test('a line split over chunks is joined before it is judged; a complete line is written at once', () => {
  const half = SETPGID.length >> 1;
  const { writes, afterEachChunk } = feed(['warning: first\n', SETPGID.slice(0, half), `${SETPGID.slice(half)}\nsecond`, ' line\n']);
  assert.deepEqual(afterEachChunk, ['warning: first\n', 'warning: first\n', 'warning: first\n', 'warning: first\nsecond line\n']);
  assert.equal(writes.join(''), 'warning: first\nsecond line\n');
});

test('an unfinished last line is written at the end, unless it is the harmless one', () => {
  assert.equal(feed(['a\n', 'no newline at the end']).writes.join(''), 'a\nno newline at the end');
  assert.equal(feed(['a\n', SETPGID]).writes.join(''), 'a\n');
  assert.deepEqual(feed([]).writes, []);
});

test('a setpgid warning of another errno is not the known race, and passes', () => {
  const other = SETPGID.replace('Permission denied', 'No such process');
  assert.equal(feed([`${other}\n`]).writes.join(''), `${other}\n`);
});
