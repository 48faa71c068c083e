// A terminal that goes away or a pipe closed early (`mgpu-train train ... | head -3`) must not end
// a run: the first write error on stdout or stderr (EPIPE, EIO) marks that stream closed, later
// writes to it are dropped, and training goes on to its end; metrics.jsonl, the checkpoints and
// final/ record everything. The other stream, while open, says so once (when `goesOn` says what
// the command does meanwhile; `report | head` ends quietly, as Unix tools do).

const closed = new WeakSet<NodeJS.WritableStream>();

/** True once a write to `stream` has failed: nothing more is written to it. */
export const isClosed = (stream: NodeJS.WritableStream): boolean => closed.has(stream);

/** Watches process.stdout and process.stderr (the CLI calls this once, first thing). */
export function keepGoingWhenOutputCloses(goesOn: string | null): void {
  watch(process.stdout, 'stdout', process.stderr, goesOn);
  watch(process.stderr, 'stderr', process.stdout, goesOn);
}

function watch(stream: NodeJS.WriteStream, name: string, other: NodeJS.WriteStream, goesOn: string | null): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (closed.has(stream)) return;
    closed.add(stream);
    // Writes after this one are dropped: a closed pipe or a hung-up terminal takes nothing more.
    stream.write = (_chunk: unknown, enc?: unknown, cb?: unknown) => {
      const done = typeof enc === 'function' ? enc : cb;
      if (typeof done === 'function') process.nextTick(done);
      return true;
    };
    if (goesOn !== null && !closed.has(other))
      other.write(`mgpu-train: ${name} was closed (${err.code ?? err.message}); nothing more is written to it; ${goesOn}\n`);
  });
}
