// The commands of mgpu-train, each with its usage line and an example (one table: --help's
// examples, the usage errors and launch's own help read it), and yargs' usage messages turned
// into mgpu-train's: what is missing or not known, said with the command's usage and an example,
// and a mistyped flag named with the flag it is closest to.
import { closest } from '../config/checker.ts';
import { MgpuError } from '../shared/errors.ts';

export interface CommandUsage {
  usage: string;
  example: string;
  needs?: string; // what its positional argument is, as "train needs <needs>" says it
}

export const COMMAND_USAGE: Readonly<Record<string, CommandUsage>> = {
  train: {
    usage: 'mgpu-train train <config> [options]',
    example: 'mgpu-train train examples/mnist-mlp/experiment.yaml --simulate 2',
    needs: 'the experiment config (a YAML or JSON file)',
  },
  eval: {
    usage: 'mgpu-train eval <config> --checkpoint <dir> [options]',
    example: 'mgpu-train eval exp.yaml --checkpoint runs/exp',
    needs: 'the experiment config (a YAML or JSON file)',
  },
  predict: {
    usage: 'mgpu-train predict <config> --checkpoint <dir> --input <.npy, image or folder> --output <.npy, .csv or folder> [options]',
    example: 'mgpu-train predict exp.yaml --checkpoint runs/exp/final --input x.npy --output y.npy',
    needs: 'the experiment config (a YAML or JSON file)',
  },
  report: { usage: 'mgpu-train report <run>', example: 'mgpu-train report runs/exp', needs: 'a run directory' },
  benchmark: {
    usage: 'mgpu-train benchmark <net> | --config <config> [--batch N] [--workers 1,2,4] [options]',
    example: 'mgpu-train benchmark resnet18-cifar --batch 32 --workers 1,2 --simulate',
  },
  devices: { usage: 'mgpu-train devices', example: 'mgpu-train devices' },
  nets: { usage: 'mgpu-train nets', example: 'mgpu-train nets' },
  shards: {
    usage:
      'mgpu-train shards <images folder or list> <out dir> --format tfrecord|webdataset [--shard-size 256MB | --shard-samples N] [--shuffle --seed N] [--prefix train]',
    example: 'mgpu-train shards photos/train shards/train --format tfrecord --shard-size 256MB',
    needs: 'an images folder (one subfolder per class) or list CSV, and an out dir',
  },
  launch: {
    usage: 'mgpu-train launch <mpirun arguments> -- train <config> [options]',
    example: 'mgpu-train launch -H node-a,node-b -np 2 -- train exp.yaml',
  },
};

export const COMMANDS = Object.keys(COMMAND_USAGE);

/** `usage: ...; e.g. ...`, as a hint says how a command is given. */
export function usageHint(command: string | null): string {
  const u = command === null ? undefined : COMMAND_USAGE[command];
  return u ? `usage: ${u.usage}; e.g. ${u.example}; mgpu-train ${command} --help lists its options` : 'mgpu-train --help';
}

/** A flag of the command line said as unknown, with the known flag it is closest to. */
function unknownFlag(flag: string, flags: readonly string[]): string {
  const near = closest(
    flag.replace(/^-+/, ''),
    flags.filter((f) => f.length > 1),
  );
  return `unknown option ${flag}${near ? `: did you mean --${near}?` : ''}`;
}

/** The flags of `args` (before any `--`) that the command does not know (`--simulat`, `--simulat=2`). */
function strayFlags(args: readonly string[], flags: readonly string[]): string[] {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end))
    .filter((a) => /^--?[a-zA-Z]/.test(a))
    .map((a) => a.split('=')[0]!)
    .filter((f) => {
      const name = f.replace(/^-+/, '');
      return !flags.includes(name) && !flags.includes(name.replace(/^no-/, '')) && name !== 'help' && name !== 'version';
    });
}

/** The flag a name of yargs' "Unknown argument" was given as (`--simulat`), or null for a word. */
function asFlag(name: string, args: readonly string[]): string | null {
  const given = args.find((a) => a.startsWith('-') && a.replace(/^-+/, '').split('=')[0] === name);
  return given === undefined ? null : given.split('=')[0]!;
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const listed = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);

/** What a command takes, from its usage line: `<run>`, or "no arguments". */
function takes(command: string): string {
  const rest = COMMAND_USAGE[command]!.usage.split(' ').slice(2).join(' ');
  return rest === '' ? 'no arguments' : rest;
}

/**
 * yargs' message for a usage mistake, as an E_USAGE that says it plainly, with the command's usage
 * and an example. `args`: the command line after the program; `flags`: the flags the command
 * knows (without dashes). A mistyped flag is named whatever yargs names first: `train
 * --simulat 2` lacks its config because the 2 went to --simulat.
 */
export function usageError(msg: string, args: readonly string[], flags: readonly string[]): MgpuError {
  const command = COMMANDS.find((c) => args[0] === c) ?? null;
  const hint = usageHint(command);
  const stray = strayFlags(args, flags).map((f) => unknownFlag(f, flags));
  const missing = /^Missing required arguments?: (.*)$/.exec(msg);
  const needs = /^Not enough non-option arguments/.test(msg) && command ? COMMAND_USAGE[command]!.needs : undefined;
  if (command && (needs || missing)) {
    const what = needs ?? listed(missing![1]!.split(', ').map((n) => `--${n}`));
    return new MgpuError('E_USAGE', [...stray.map((s) => `${command}: ${s}`), `${command} needs ${what}`].join('; '), { hint });
  }
  const unknown = /^Unknown arguments?: (.*)$/.exec(msg);
  if (unknown) {
    const names = unknown[1]!.split(', ');
    // yargs names a hyphenated flag twice, as given and camel-cased (`run-dri, runDri`): said once.
    const said = names
      .filter((n) => !names.some((m) => m !== n && camelCase(m) === n))
      .map((name) => {
        const flag = asFlag(name, args);
        if (flag !== null) return unknownFlag(flag, flags);
        return `unexpected argument ${JSON.stringify(name)}${command ? ` (${command} takes ${takes(command)})` : ''}`;
      });
    return new MgpuError('E_USAGE', `${command ?? 'mgpu-train'}: ${said.join('; ')}`, { hint });
  }
  return new MgpuError('E_USAGE', msg, { hint });
}
