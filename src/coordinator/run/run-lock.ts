// One run at a time in a run directory: <runDir>/.lock holds the pid, host and start time of the
// run that holds it. It is created whole or not at all (written to a temporary name, then hard
// linked to .lock, which fails when one exists; O_EXCL where hard links are not), and removed when the run ends, fails, or exits
// on a signal. A lock whose pid no longer runs on this host (a run killed with SIGKILL, a crash)
// is stale: the next run takes it over and says so (under a second lock, so that of two runs
// that find it stale at once only one takes it). A live one, or one of another host whose
// process cannot be checked from here, is refused (E_RUN_LOCKED, exit 2).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MgpuError } from '../../shared/errors.ts';
import { processAlive as alive } from '../../shared/process-alive.ts';

export const LOCK_FILE = '.lock';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockInfo>;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? { pid: v.pid, host: v.host, startedAt: String(v.startedAt) } : null;
  } catch {
    return null; // gone, or not a lock this project wrote
  }
}

/** Creates `file` holding `info`, whole; false when a lock is there already. */
function tryCreate(file: string, info: LockInfo): boolean {
  const text = JSON.stringify(info) + '\n';
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    return createExclusive(file, text); // a filesystem without hard links
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function createExclusive(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function describe(held: LockInfo | null): string {
  return held ? `pid ${held.pid} on ${held.host}, started ${held.startedAt}` : 'an unreadable lock';
}

function sameLock(a: LockInfo | null, b: LockInfo | null): boolean {
  return a === b || (a !== null && b !== null && a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt);
}

/** E_RUN_LOCKED unless `held` is stale: unreadable, or its pid no longer runs on this host. */
function refuseUnlessStale(file: string, runDir: string, held: LockInfo | null, host: string): void {
  if (held === null || (held.host === host && !alive(held.pid))) return;
  const here = held.host === host;
  throw new MgpuError(
    'E_RUN_LOCKED',
    `another run is using ${runDir}: ${describe(held)}${here ? '' : ' (another host: its process cannot be checked from here)'}`,
    {
      hint: here
        ? 'wait for that run to end (or stop it), or give this run another name or --run-dir'
        : `wait for that run to end, or give this run another name or --run-dir; if it no longer runs, remove ${file}`,
    },
  );
}

/**
 * Replaces the stale lock `held` with `mine`. Two runs that both found it stale must not both
 * remove "the" lock: the second would remove the first one's fresh lock and take it too. So the
 * removal is done only under a second lock, <lock>.takeover (created whole, as the lock is), and
 * only if the lock is still the very one judged stale; a run that finds the takeover lock taken,
 * or the stale lock replaced, lost the race and is refused.
 */
function takeOver(file: string, held: LockInfo | null, mine: LockInfo): void {
  const guard = `${file}.takeover`;
  if (!tryCreate(guard, mine)) {
    const other = readLock(guard);
    const dead = other !== null && other.host === mine.host && !alive(other.pid);
    throw new MgpuError(
      'E_RUN_LOCKED',
      dead ? `a run that was taking over ${file} died doing it (${describe(other)})` : `another run is taking over ${file} at the same time as this one`,
      {
        hint: dead ? `if no run uses ${path.dirname(file)}, remove ${guard} and ${file}` : 'run one at a time',
      },
    );
  }
  try {
    const now = readLock(file);
    if (!sameLock(now, held)) refuseUnlessStale(file, path.dirname(file), now, mine.host);
    fs.rmSync(file, { force: true });
    if (!tryCreate(file, mine)) throw new MgpuError('E_RUN_LOCKED', `another run took ${file} at the same time as this one`, { hint: 'run one at a time' });
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

export interface RunLock {
  file: string;
  release(): void;
}

/** Takes the lock of `runDir` (which exists); `say` gets the note when a stale lock is taken over. */
export function takeRunLock(runDir: string, say: (text: string) => void): RunLock {
  const file = path.join(runDir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  if (!tryCreate(file, mine)) {
    const held = readLock(file);
    refuseUnlessStale(file, runDir, held, mine.host);
    takeOver(file, held, mine);
    say(`took over the stale lock ${file} (${describe(held)}, which no longer runs)`);
  }
  const release = () => {
    process.off('exit', release);
    const now = readLock(file);
    if (sameLock(now, mine)) fs.rmSync(file, { force: true });
  };
  // A process.exit (a second Ctrl-C) skips the finally blocks: the lock goes with the process.
  process.on('exit', release);
  return { file, release };
}
