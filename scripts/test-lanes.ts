// `npm run test:integration`: the integration test files in two lanes side by side, each lane one
// file at a time (node --test, concurrency 1). The waiting lane holds the files below, which
// spend most of their wall time waiting: for a deadline to pass (reliability.stepTimeout, a
// stalled worker or data module), for a stopped MPI rank to be noticed, for a cut or slowed
// network link. Measured alone on 2 quiet vCPUs (/usr/bin/time, 2026-12-07): 213 s of wall time
// for 37 s of CPU (net-faults 113 s for 26, the two never-settling get()s 33 for 5 and 13 for 1.6,
// chaos-eval-stall 32 for 4, mpi-stalled-machine 21 for 1). Every other file keeps the two cores
// busy on its own (chaos-worker-death: 12 s of wall for 20 of CPU) and runs in the main lane, so
// no test sees more than one waiting test beside it; the waiting tests' deadlines (12-15 s) leave
// room for worker start-up on a loaded machine, as their comments say.
//
// Arguments after `--` are passed to both lanes' `node --test` (a reporter, --test-name-pattern).
// The exit status is the first lane's that failed, else 0. The waiting lane's lines are prefixed.
// Each failed test's TAP block (its `not ok` line and the YAML under it: the error, the stack) is
// printed again at the very end, with its lane, so that the tail of a long run (what CI keeps)
// says what failed even when the failure scrolled past twenty minutes earlier.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tapFailures } from './tap-failures.ts';

/** The waiting lane, by file name without `.test.ts`. */
export const WAITING = [
  'net-faults',
  'map-style-get-never-settles-times-out',
  'chaos-eval-stall',
  'mpi-stalled-machine',
  'map-style-eval-get-never-settles-times-out',
] as const;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIR = path.join('test', 'integration');

function lanes(): { main: string[]; waiting: string[] } {
  const all = fs
    .readdirSync(path.join(ROOT, DIR))
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  const missing = WAITING.filter((w) => !all.includes(`${w}.test.ts`));
  if (missing.length > 0) {
    console.error(`test-lanes: the waiting lane names files that are not in ${DIR}: ${missing.join(', ')} (renamed? update WAITING in scripts/test-lanes.ts)`);
    process.exit(2);
  }
  const waiting = new Set<string>(WAITING.map((w) => `${w}.test.ts`));
  return {
    main: all.filter((f) => !waiting.has(f)).map((f) => path.join(DIR, f)),
    waiting: [...waiting].map((f) => path.join(DIR, f)),
  };
}

const failures = tapFailures();

/** One lane's `node --test`, its output line by line (prefixed), resolved with its exit status. */
function lane(files: string[], extra: string[], prefix: string): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...extra, ...files], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    const collect = failures.reader(prefix);
    readline.createInterface({ input: from }).on('line', (line) => {
      to.write(`${prefix}${line}\n`);
      collect(line);
    });
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const dash = process.argv.indexOf('--');
const extra = dash >= 0 ? process.argv.slice(dash + 1) : process.argv.slice(2);
const { main, waiting } = lanes();
const [a, b] = await Promise.all([lane(main, extra, ''), lane(waiting, extra, '[waiting lane] ')]);
if (a !== 0 || b !== 0) {
  const said = failures.blocks.length > 0 ? `${failures.blocks.length} failed test block(s), again` : 'no `not ok` line: a lane ended early';
  console.log(`\ntest-lanes: main lane exit ${a}, waiting lane exit ${b}; ${said}:`);
  for (const block of failures.blocks) console.log(block.join('\n'));
}
process.exit(a !== 0 ? a : b);
