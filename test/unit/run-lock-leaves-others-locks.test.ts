// A run directory's lock that is not this run's is never removed: one of another host (whose
// process cannot be checked from here) refuses the run, naming the host and how to clear it;
// and a run's release removes the lock only while it is still its own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { takeRunLock } from '../../src/coordinator/run/run-lock.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = () => tempDir('lock');

test("another host's lock refuses the run and stays", () => {
  const d = dir();
  const file = path.join(d, '.lock');
  // a pid above any pid_max: dead here, which says nothing of the other host
  const other = JSON.stringify({ pid: 99999999, host: 'node-17.cluster', startedAt: '2026-01-01T00:00:00.000Z' });
  fs.writeFileSync(file, other);
  assert.throws(
    () => takeRunLock(d, () => assert.fail('no lock is taken over')),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_RUN_LOCKED');
      assert.equal(
        e.message,
        `another run is using ${d}: pid 99999999 on node-17.cluster, started 2026-01-01T00:00:00.000Z (another host: its process cannot be checked from here)`,
      );
      assert.match(e.hint ?? '', new RegExp(`if it no longer runs, remove ${file}$`));
      return true;
    },
  );
  assert.equal(fs.readFileSync(file, 'utf8'), other);
});

test('release removes the lock only while it is still the run’s own', () => {
  const d = dir();
  const lock = takeRunLock(d, () => {});
  const theirs = JSON.stringify({ pid: 1, host: os.hostname(), startedAt: 'later' });
  fs.writeFileSync(lock.file, theirs); // e.g. taken over by another run after this one was thought dead
  lock.release();
  assert.equal(fs.readFileSync(lock.file, 'utf8'), theirs);
  const mine = takeRunLock(dir(), () => {});
  mine.release();
  assert.ok(!fs.existsSync(mine.file));
});
