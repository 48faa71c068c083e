// What a person watching the run sees: a live bar on a terminal, plain lines in a log file.
export interface Progress {
  step(step: number, total: number, text: string): void;
  line(text: string): void;
  done(): void;
}

/** `1 worker`, `2 workers`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function makeProgress(every: number, stream: NodeJS.WriteStream = process.stdout): Progress {
  if (!stream.isTTY) {
    return {
      step: (step, total, text) => {
        if (step % every === 0 || step === total) stream.write(`step ${step}/${total} ${text}\n`);
      },
      line: (text) => stream.write(text + '\n'),
      done: () => {},
    };
  }
  let live = false;
  const clear = () => {
    if (live) stream.write('\r\x1b[2K');
    live = false;
  };
  return {
    step(step, total, text) {
      const width = 24;
      const filled = Math.round((step / total) * width);
      const bar = '='.repeat(Math.max(0, filled - 1)) + (filled ? '>' : '') + ' '.repeat(width - filled);
      clear();
      stream.write(`[${bar}] ${step}/${total} ${text}`);
      live = true;
    },
    line(text) {
      clear();
      stream.write(text + '\n');
    },
    done() {
      if (live) stream.write('\n');
      live = false;
    },
  };
}
