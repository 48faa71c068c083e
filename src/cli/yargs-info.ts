// What the command line's help and usage errors read from the terminal and from yargs: the width
// to wrap --help at, and the flags a command knows.
import type { Argv } from 'yargs';

/**
 * The terminal's width (yargs wraps at 80 columns on a wider one), else $COLUMNS (as shells and
 * Python's argparse give it to a pipe), else 80.
 */
export function helpWidth(stdout: { columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const columns = Number(env.COLUMNS);
  return stdout.columns ?? (Number.isSafeInteger(columns) && columns > 0 ? columns : 80);
}

/** The flags (without dashes) the command being parsed knows, in kebab-case as --help lists them. */
export function knownFlags(y: Argv | undefined): string[] {
  // getOptions is yargs' own (untyped): every key it was told of, with aliases and camelCase forms.
  const opts = (y as { getOptions?: () => { key?: Record<string, unknown> } } | undefined)?.getOptions?.();
  const keys = Object.keys(opts?.key ?? {});
  return keys.filter((k) => !/[A-Z]/.test(k) && k !== '$0');
}
