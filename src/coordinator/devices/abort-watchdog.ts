// A coordinator that has called MPI_Abort waits inside it for Open MPI to end every rank. When a
// machine is cut off, Open MPI's abort can wait on it for many minutes ("abort is already in
// progress"), and this coordinator with it; and the cut-off machine's Open MPI daemon (orted)
// keeps retrying its last message to mpirun for as long as TCP retransmits (~15 min), where
// the keepalive settings cannot help (they act on idle connections only). So before the call a
// small watchdog process is started, in its own session (Open MPI's kill of the rank does not
// reach it): if the coordinator is still alive ABORT_EXIT_S later, it SIGKILLs it (its event
// loop is blocked inside MPI_Abort, so no timer of its own could fire), and the workers see
// their control pipe close and exit on their own; if this rank's parent is an orted that is
// still alive ORTED_EXIT_S after the call, it ends that too (SIGTERM, then SIGKILL). The
// watchdog ends as soon as there is nothing left to wait for. mpirun itself (rank 0's parent
// on the machine it runs on) is left to `mgpu-train launch`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export const ABORT_EXIT_S = 10;
export const ORTED_EXIT_S = 20;

function parentIsOrted(): boolean {
  try {
    return fs.readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim() === 'orted';
  } catch {
    return false;
  }
}

export function armAbortWatchdog(where: string): void {
  const me = process.pid;
  const orted = parentIsOrted() ? process.ppid : 0;
  const script = `
    wait_gone() { i=0; while kill -0 "$1" 2>/dev/null; do [ $i -ge $(($2 * 5)) ] && return 1; sleep 0.2; i=$((i+1)); done; }
    if ! wait_gone ${me} ${ABORT_EXIT_S}; then echo "$1" >&2; kill -9 ${me}; fi
    [ ${orted} -ne 0 ] || exit 0
    if ! wait_gone ${orted} ${ORTED_EXIT_S - ABORT_EXIT_S}; then echo "$2" >&2; kill -TERM ${orted}; sleep 2; kill -9 ${orted} 2>/dev/null; fi
    exit 0`;
  const coordinator = `mgpu-train: ${where} is still in MPI_Abort ${ABORT_EXIT_S} s after calling it (Open MPI could not end the job: a machine unreachable?): ending it and its workers`;
  const daemon = `mgpu-train: ${where}: this machine's Open MPI daemon (orted, pid ${orted}) is still running ${ORTED_EXIT_S} s after the MPI_Abort (mpirun unreachable?): ending it`;
  spawn('sh', ['-c', script, 'sh', coordinator, daemon], { stdio: ['ignore', 'ignore', 'inherit'], detached: true }).unref();
}
