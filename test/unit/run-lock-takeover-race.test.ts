// Two runs that find the same stale lock at once: only one may take it over. The interleaving
// that let both run is played here in one process: this run reads the stale lock, and before it
// acts another run takes it over (its fresh lock replaces the stale one). This run must then be
// refused and leave the other's lock in place, not remove it and run beside it. And a takeover
// already under way (its <lock>.takeover present) refuses a third run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { takeRunLock } from '../../src/coordinator/run/run-lock.ts';
import { tempDir } from '../helpers/train-fixture.ts';

/** A pid that ran on this host and has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function staleLock(dir: string): string {
  const file = path.join(dir, '.lock');
  fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), host: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z' }) + '\n');
  return file;
}

test('a run that loses the takeover race is refused and leaves the winner’s lock', (t) => {
  const d = tempDir('lock-race');
  const file = staleLock(d);
  // The winner: a live process of this host (this test's own parent shell would do; the test runner is one).
  const winner = JSON.stringify({ pid: process.ppid, host: os.hostname(), startedAt: '2026-12-01T00:00:00.000Z' }) + '\n';
  const read = fs.readFileSync;
  let swapped = false;
  t.mock.method(fs, 'readFileSync', (...args: Parameters<typeof fs.readFileSync>) => {
    const out = read(...args);
    if (!swapped && args[0] === file) {
      swapped = true; // this run has just judged the lock stale: the other run wins now
      fs.rmSync(file);
      fs.writeFileSync(file, winner);
    }
    return out;
  });
  assert.throws(
    () => takeRunLock(d, () => assert.fail('the lost race took the lock over')),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_RUN_LOCKED');
      assert.match(e.message, new RegExp(`^another run is using ${d}: pid ${process.ppid} on `));
      return true;
    },
  );
  t.mock.restoreAll();
  assert.ok(swapped, 'the lock was never read');
  assert.equal(fs.readFileSync(file, 'utf8'), winner, 'the winner’s lock was removed or replaced');
  assert.ok(!fs.existsSync(`${file}.takeover`), 'the takeover lock was left behind');
});

test('a takeover under way refuses another run; one left by a dead run is named with how to clear it', () => {
  const d = tempDir('lock-race');
  const file = staleLock(d);
  const guard = `${file}.takeover`;
  fs.writeFileSync(guard, JSON.stringify({ pid: process.ppid, host: os.hostname(), startedAt: 'now' }) + '\n');
  assert.throws(() => takeRunLock(d, () => {}), { code: 'E_RUN_LOCKED', message: `another run is taking over ${file} at the same time as this one` });
  fs.writeFileSync(guard, JSON.stringify({ pid: deadPid(), host: os.hostname(), startedAt: 'then' }) + '\n');
  assert.throws(
    () => takeRunLock(d, () => {}),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_RUN_LOCKED');
      assert.match(e.message, /died doing it/);
      assert.equal(e.hint, `if no run uses ${d}, remove ${guard} and ${file}`);
      return true;
    },
  );
  fs.rmSync(guard);
  const taken = takeRunLock(d, () => {});
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).pid, process.pid);
  taken.release();
});
