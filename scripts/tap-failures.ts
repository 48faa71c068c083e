// The failed tests of a TAP stream (node --test's default reporter when its output is not a
// terminal): each `not ok` line and the indented YAML block under it (the error, the stack), up
// to that block's closing `...`. scripts/test-lanes.ts prints them again at the end of a run.

/** The longest part of one failure's block that is kept (a stack can run long). */
export const BLOCK_LINES = 60;

export interface TapFailures {
  /** A line reader for one stream; `prefix` goes in front of each line it keeps. */
  reader(prefix: string): (line: string) => void;
  /** The blocks kept so far, in the order their `not ok` lines came. */
  readonly blocks: string[][];
}

export function tapFailures(): TapFailures {
  const blocks: string[][] = [];
  return {
    blocks,
    reader(prefix) {
      let block: string[] | null = null;
      let end = '';
      return (line) => {
        if (block) {
          if (block.length < BLOCK_LINES) block.push(`${prefix}${line}`);
          if (line === end) block = null;
          return;
        }
        const notOk = /^(\s*)not ok \d+ /.exec(line);
        if (!notOk) return;
        end = `${notOk[1]!}  ...`;
        block = [`${prefix}${line}`];
        blocks.push(block);
      };
    },
  };
}
