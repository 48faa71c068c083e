// What `mgpu-train launch` passes on of mpirun's stderr: all of it, line by line as it comes, but
// the lines Open MPI writes about its own launch that say nothing is wrong. The one known:
// its rsh launcher calls setpgid on each child from the parent as well as from the child
// (open-mpi/ompi#2957), and when the child has already exec'd the parent's call fails with
// EACCES and it warns "plm:rsh: Warning: setpgid(...) failed in parent with errno=Permission
// denied": a race, seen on a loaded machine, after which the job runs as it should. A user who
// saw it would look for a fault that is not there.

/** Lines of mpirun's stderr that are dropped. */
export const HARMLESS_MPIRUN_LINES: readonly RegExp[] = [/plm:rsh: Warning: setpgid\(\d+,\d+\) failed in parent with errno=Permission denied/];

/**
 * A writer of mpirun's stderr to `write`, whole lines at a time, without the harmless ones: a
 * line's end may come in a later chunk, so the unfinished last line waits for it (or for end()).
 */
export function mpirunStderr(write: (text: string) => void): { push(chunk: string): void; end(): void } {
  let pending = '';
  const harmless = (line: string) => HARMLESS_MPIRUN_LINES.some((re) => re.test(line));
  const pass = (lines: string[]) => {
    const kept = lines.filter((line) => !harmless(line));
    if (kept.length > 0) write(kept.map((line) => `${line}\n`).join(''));
  };
  return {
    push(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      pass(lines);
    },
    end() {
      if (pending === '') return;
      const last = pending;
      pending = '';
      if (!harmless(last)) write(last);
    },
  };
}
