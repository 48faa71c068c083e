// `mgpu-train launch <mpirun arguments> -- <mgpu-train arguments>`, as horovodrun and torchrun
// are: runs Open MPI's mpirun with the settings a mgpu-train job needs in front of the user's own
// (the user's win: a setting the user gives, on the line or as OMPI_MCA_* in the environment,
// is not added), then `node <this package's bin> <mgpu-train arguments>` on every rank. It prints
// the mpirun line, passes mpirun's exit status on, and ends mpirun when it outlives an MPI_Abort
// (a machine cut off keeps Open MPI's abort waiting on it).
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { closest } from '../config/checker.ts';
import { MgpuError } from '../shared/errors.ts';
import { COMMAND_USAGE, COMMANDS } from './command-usage.ts';
import { mpirunStderr } from './mpirun-stderr.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

/** Open MPI 4.1 settings (MCA parameters) added unless the user gives them. */
export const LAUNCH_MCA: ReadonlyArray<{ key: string; value: string; why: string }> = [
  { key: 'oob_tcp_keepalive_time', value: '10', why: 'a daemon whose machine went silent is probed after 10 s idle (default 300 s)' },
  { key: 'oob_tcp_keepalive_intvl', value: '5', why: 'probes 5 s apart (default 20 s)' },
  { key: 'oob_tcp_keepalive_probes', value: '3', why: 'gone after 3 unanswered probes (default 9): an idle lost machine is noticed in 25 s, not 480 s' },
  { key: 'orte_startup_timeout', value: '60', why: 'a daemon that has not reported back 60 s after the launch fails the job (default: wait for ever)' },
  { key: 'odls_base_sigkill_timeout', value: '2', why: 'SIGKILL 2 s after the SIGTERM that ends a rank' },
];

/** mpirun options added unless the user gives one of `same`. */
export const LAUNCH_OPTIONS: ReadonlyArray<{ option: string[]; same: string[]; why: string }> = [
  {
    option: ['--map-by', 'ppr:1:node'],
    same: ['--map-by', '-map-by', '--npernode', '-npernode', '-N', '--ppr', '-ppr', '--rankfile', '-rf', '--bynode', '-bynode', '--byslot', '-byslot'],
    why: 'one coordinator per machine: it runs every GPU of its machine',
  },
  {
    option: ['--bind-to', 'none'],
    same: ['--bind-to', '-bind-to'],
    why: 'the coordinator and its workers may use every core (the default binds a rank to one core)',
  },
];

/** Seconds mpirun may outlive an MPI_Abort it reported before this launcher ends it. */
export const ABORT_GRACE_S = 20;

/** `--mca key value` pairs of the user's line (also -mca, --gmca). */
function userMca(args: readonly string[]): Set<string> {
  const keys = new Set<string>();
  args.forEach((a, i) => {
    if (/^--?g?mca$/.test(a) && args[i + 1] !== undefined) keys.add(args[i + 1]!);
  });
  return keys;
}

/** The mpirun argument list: the settings the user did not give, the user's, then the ranks' command. */
export function launchLine(mpirunArgs: readonly string[], mgpuArgs: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const given = userMca(mpirunArgs);
  const mca = LAUNCH_MCA.filter((s) => !given.has(s.key) && env[`OMPI_MCA_${s.key}`] === undefined).flatMap((s) => ['--mca', s.key, s.value]);
  const options = LAUNCH_OPTIONS.filter((o) => !mpirunArgs.some((a) => o.same.includes(a.split('=')[0]!))).flatMap((o) => o.option);
  return [...options, ...mca, ...mpirunArgs, process.execPath, BIN, ...mgpuArgs];
}

const LAUNCH_EXAMPLE = `e.g. ${COMMAND_USAGE.launch!.example}`;

/** `launch --help` (or -h) before any `--`: launch's own help, not mpirun's. */
export function asksLaunchHelp(args: readonly string[]): boolean {
  const at = args.indexOf('--');
  return (at < 0 ? args : args.slice(0, at)).some((a) => a === '--help' || a === '-h');
}

/** What `launch --help` prints. */
export function launchHelp(): string {
  return [
    COMMAND_USAGE.launch!.usage,
    '',
    "Train on several machines: runs Open MPI's mpirun with the arguments before `--`, and on every",
    'rank `mgpu-train` with those after it (a train command, checked here before mpirun starts).',
    'Added unless given: ' + [...LAUNCH_OPTIONS.map((o) => o.option.join(' ')), ...LAUNCH_MCA.map((m) => `--mca ${m.key} ${m.value}`)].join(', ') + '.',
    '',
    'Examples:',
    `  ${COMMAND_USAGE.launch!.example}`,
    '  mgpu-train launch -H node-a:1,node-b:1 -np 2 -- train exp.yaml --set training.batchSize=256',
    '  mgpu-train launch --hostfile hosts -np 4 -- train exp.yaml --resume',
    '',
    "mgpu-train train --help lists train's options; mpirun --help lists mpirun's.",
  ].join('\n');
}

/** Splits `launch` arguments at the first `--`; checks that the mgpu-train part is a `train`. */
export function splitLaunchArgs(args: readonly string[]): { mpirun: string[]; mgpu: string[] } {
  const at = args.indexOf('--');
  if (at < 0 || at === args.length - 1) {
    throw new MgpuError('E_USAGE', `launch: ${at < 0 ? 'no `--`' : 'nothing after `--`'}: mpirun's arguments go before \`--\`, mgpu-train's after it`, {
      hint: `${LAUNCH_EXAMPLE}; mgpu-train launch --help`,
    });
  }
  const mgpu = args.slice(at + 1);
  const word = mgpu[0]!;
  if (word !== 'train') {
    const near = COMMANDS.includes(word) ? undefined : closest(word, COMMANDS);
    const what = COMMANDS.includes(word)
      ? `${JSON.stringify(word)} after \`--\`: only train runs on several machines`
      : `unknown command ${JSON.stringify(word)} after \`--\`${near ? `: did you mean ${near}?` : ''} (only train runs on several machines)`;
    throw new MgpuError('E_USAGE', `launch: ${what}`, { hint: `${LAUNCH_EXAMPLE}; eval and predict run on one machine` });
  }
  return { mpirun: args.slice(0, at), mgpu };
}

/** A shell-quoted rendering of a command line, to print. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Runs the job; resolves to the exit status to pass on. `check` checks the mgpu-train arguments
 * (the flags, the config and its keys) here, before mpirun starts: a mistake in them would
 * otherwise be said by every rank, under mpirun's abort banner.
 */
export async function launch(args: readonly string[], check: (mgpuArgs: string[]) => Promise<void>): Promise<number> {
  if (asksLaunchHelp(args)) {
    console.log(launchHelp());
    return 0;
  }
  const { mpirun, mgpu } = splitLaunchArgs(args);
  await check(mgpu).catch((err: unknown) => {
    if (!(err instanceof MgpuError)) throw err;
    const where = 'launch checks the train command and its config on this machine before it starts mpirun (every machine needs them at the same paths)';
    throw new MgpuError(err.code, err.message, { hint: err.hint ? `${err.hint}; ${where}` : where, exitCode: err.exitCode });
  });
  const line = launchLine(mpirun, mgpu);
  console.log(`mgpu-train launch: mpirun ${shellLine(line)}`);
  // Its own process group: a Ctrl-C reaches mpirun once, from here (a second one makes mpirun
  // quit at once, without ending the ranks); no stdin (mgpu-train reads none).
  const child = spawn('mpirun', line, { stdio: ['ignore', 'inherit', 'pipe'], detached: true });
  const forward = (sig: NodeJS.Signals) => child.kill(sig);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, forward);
  const abort = endAfterAbort(child);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`error E_USAGE: launch: cannot run mpirun: ${err.message}\n  hint: install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin)`);
      resolve(2);
    });
    child.on('close', (code, signal) => resolve(abort.ended ? abort.code : (code ?? 128 + (signal ? os.constants.signals[signal] : 0))));
  });
}

/**
 * What says the job is ending on an error: a rank's own error line (it calls MPI_Abort next),
 * Open MPI's abort banner, or mpirun's notice of a rank or daemon lost.
 */
const ENDING = /^error E_[A-Z_]+: |MPI_ABORT was invoked|mpirun noticed that process rank|ORTE has lost communication/m;

/**
 * Passes mpirun's stderr through (mpirun-stderr.ts: without Open MPI's harmless launch lines); once it says the job is ending on an error, gives mpirun
 * ABORT_GRACE_S to end, then ends it; `code` is then the abort's error code (1 when not said).
 */
function endAfterAbort(child: ChildProcess): { ended: boolean; code: number } {
  const state = { ended: false, code: 1 };
  let timer: NodeJS.Timeout | null = null;
  let seen = ''; // the tail of what came, so that a phrase split over two chunks is found
  const out = mpirunStderr((text) => process.stderr.write(text));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    out.push(chunk);
    seen = (seen + chunk).slice(-4096);
    const code = /with errorcode (\d+)/.exec(seen);
    if (code) state.code = Number(code[1]);
    if (timer || !ENDING.test(seen)) return;
    timer = setTimeout(() => {
      console.error(
        `mgpu-train launch: mpirun is still running ${ABORT_GRACE_S} s after the job began to end on an error (a machine it cannot reach?): ending it`,
      );
      // Its local ranks are gone by now (it ended them first); SIGTERM or SIGINT would make this
      // mpirun crash in PMIx_Finalize with a stack trace, waiting on the lost machine again.
      state.ended = true;
      child.kill('SIGKILL');
    }, ABORT_GRACE_S * 1000);
  });
  child.on('close', () => {
    out.end();
    if (timer) clearTimeout(timer);
  });
  return state;
}
