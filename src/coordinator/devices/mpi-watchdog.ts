// The MPI calls that block the coordinator (MPI_Init, MPI_Abort, MPI_Finalize) can wait on a
// machine that is cut off for as long as TCP retransmits (many minutes): MPI_Init in its
// exchange with the other ranks, MPI_Abort in Open MPI's abort ("abort is already in
// progress"), and the cut-off machine's Open MPI daemon (orted) keeps retrying its last message
// to mpirun, where the keepalive settings cannot help (they act on idle connections only). So
// around each such call a small watchdog process runs, in its own session (Open MPI's kill of
// the rank does not reach it): if the coordinator is still in the call `seconds` later, it
// SIGKILLs it (its event loop is blocked, so no timer of its own could fire), and the workers
// see their control pipe close and exit on their own; if this rank's parent is an orted that is
// still alive ORTED_AFTER_S after that, it ends it too (SIGTERM, then SIGKILL). mpirun itself
// (rank 0's parent on its machine) is left to `mgpu-train launch`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export const WATCHDOG_S = { init: 30, abort: 10, finalize: 20 } as const;
export const ORTED_AFTER_S = 10;

function parentIsOrted(): boolean {
  try {
    return fs.readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim() === 'orted';
  } catch {
    return false;
  }
}

/** Starts the watchdog for `call`; the function returned stops it (the call returned in time). */
export function armWatchdog(call: keyof typeof WATCHDOG_S, where: string): () => void {
  const seconds = WATCHDOG_S[call];
  const me = process.pid;
  const orted = parentIsOrted() ? process.ppid : 0;
  const script = `
    wait_gone() { i=0; while kill -0 "$1" 2>/dev/null; do [ $i -ge $(($2 * 5)) ] && return 1; sleep 0.2; i=$((i+1)); done; }
    wait_gone ${me} ${seconds} && [ ${orted} -eq 0 ] && exit 0
    if kill -0 ${me} 2>/dev/null; then echo "$1" >&2; kill -9 ${me}; fi
    [ ${orted} -ne 0 ] || exit 0
    if ! wait_gone ${orted} ${ORTED_AFTER_S}; then echo "$2" >&2; kill -TERM ${orted}; sleep 2; kill -9 ${orted} 2>/dev/null; fi
    exit 0`;
  const stuck = `mgpu-train: ${where} is still in MPI_${call[0]!.toUpperCase()}${call.slice(1)} ${seconds} s after calling it (a machine unreachable?): ending it and its workers`;
  const daemon = `mgpu-train: ${where}: this machine's Open MPI daemon (orted, pid ${orted}) is still running ${ORTED_AFTER_S} s after its rank ended (mpirun unreachable?): ending it`;
  const child = spawn('sh', ['-c', script, 'sh', stuck, daemon], { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  child.unref();
  return () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
}
