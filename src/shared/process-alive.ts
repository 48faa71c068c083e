// Whether a process of this host still runs, for the files a run leaves with its pid in them (a
// run directory's lock, a checkpoint's step-<k>.tmp-<pid> while it is written).
import fs from 'node:fs';

/** Whether `pid` runs on this host: a zombie (killed, not yet reaped: where PID 1 reaps nothing) does not. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true; // no /proc (not Linux): kill(0) is the answer
  }
}
