// Mutation testing of one folder (or a few files) of src/ against its own unit tests, with
// StrykerJS: each mutant is a small change to the code (a condition flipped, an operator or
// constant changed, a statement removed); a test that then fails "kills" it, one that survives
// marks code whose behaviour no test pins down. How to run it and read it: CONTRIBUTING.md.
//
//   node --import tsx scripts/mutation.ts <folder or .ts file under src/>... [--test file]...
//        [--skip-test file]... [--concurrency n] [--force] [--name name] [--list]
//        [--coverage perTest|all|off]
//
// The tests are the unit tests that import one of the mutated files directly
// (mutation-targets.ts), plus any --test, less any --skip-test; they run with the tap runner, one node process per
// test file (node:test prints TAP), from Stryker's sandbox copy of the project. MGPU_FROM_SOURCE=1
// makes every child process and worker thread a test starts run the sandbox's mutated sources,
// never dist/. Results go to reports/mutation/<name>/ (gitignored): the clear-text report, the
// JSON report, the incremental file (a rerun tests only the mutants whose code or tests changed;
// --force tests all), and the config the run used.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runName, sourceFiles, symlinkedFolders, testsImporting, unitTests } from './mutation-targets.ts';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    test: { type: 'string', multiple: true, default: [] },
    'skip-test': { type: 'string', multiple: true, default: [] },
    concurrency: { type: 'string' },
    force: { type: 'boolean', default: false },
    name: { type: 'string' },
    list: { type: 'boolean', default: false },
    coverage: { type: 'string', default: 'perTest' },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

if (positionals.length === 0) fail('mutation: name a folder or .ts files under src/, e.g. node --import tsx scripts/mutation.ts src/data/shards');
let mutate: string[];
try {
  mutate = [...new Set(positionals.flatMap((t) => sourceFiles(ROOT, t)))];
} catch (err) {
  fail((err as Error).message);
}
const outside = mutate.filter((f) => !f.startsWith('src/'));
if (outside.length > 0) fail(`mutation: only files under src/ are mutated, not ${outside.join(', ')}`);
const relative = (t: string) => path.relative(ROOT, path.resolve(t));
const found = [...new Set([...testsImporting(ROOT, unitTests(ROOT), mutate), ...values.test.map(relative)])];
const skipped = values['skip-test'].map(relative);
const notFound = skipped.filter((t) => !found.includes(t));
if (notFound.length > 0) fail(`mutation: --skip-test ${notFound.join(', ')}: not among the tests of this run (see --list)`);
const tests = found.filter((t) => !skipped.includes(t));
if (tests.length === 0) fail(`mutation: no unit test imports ${mutate.join(', ')} directly; name one with --test`);

// One test process at a time where the machine has 2 cores or fewer (the tests start workers of
// their own), else two: more makes the tests' own timing-bound waits flaky.
const concurrency = values.concurrency === undefined ? (os.availableParallelism() <= 2 ? 1 : 2) : Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) fail(`mutation: --concurrency must be a whole number >= 1, got '${values.concurrency}'`);

// Coverage is seen in the test's own process only: code that runs only in a worker thread or a
// child process a test starts shows as "no coverage" unless --coverage off runs every mutant
// against every test file.
if (!['perTest', 'all', 'off'].includes(values.coverage)) fail(`mutation: --coverage is perTest, all or off, not '${values.coverage}'`);

const name = values.name ?? runName(positionals);
const outDir = path.join('reports', 'mutation', name);
fs.mkdirSync(path.join(ROOT, outDir), { recursive: true });
const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'stryker.config.json'), 'utf8')) as { tap: object; ignorePatterns: string[] };
// A linked native/build (shared with another checkout) stays out of the sandbox: the addons then
// do not load there and the code under test takes its JavaScript fallbacks.
const linked = symlinkedFolders(ROOT, ['.stryker-tmp', 'reports', 'runs', 'tmp']);
const config = {
  ...base,
  ignorePatterns: [...base.ignorePatterns, ...linked.map((l) => `/${l}`)],
  $schema: '../../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  mutate,
  tap: { ...base.tap, testFiles: tests },
  concurrency,
  coverageAnalysis: values.coverage,
  force: values.force,
  incrementalFile: `${outDir}/incremental.json`,
  jsonReporter: { fileName: `${outDir}/mutation.json` },
};
const configFile = path.join(outDir, 'stryker.config.json');
fs.writeFileSync(path.join(ROOT, configFile), `${JSON.stringify(config, null, 2)}\n`);

console.log(`mutation: ${mutate.length} files to mutate, ${tests.length} test files, concurrency ${concurrency}`);
for (const f of mutate) console.log(`  mutate ${f}`);
for (const t of tests) console.log(`  test   ${t}`);
for (const t of skipped) console.log(`  skipped (--skip-test) ${t}`);
for (const l of linked) console.log(`  left out of the sandbox (a link to a folder): ${l}`);
if (values.list) process.exit(0);

const started = performance.now();
const log = fs.createWriteStream(path.join(ROOT, outDir, 'clear-text.txt'));
const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', configFile], {
  cwd: ROOT,
  env: { ...process.env, MGPU_FROM_SOURCE: '1' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
child.stdout.on('data', (b: Buffer) => (process.stdout.write(b), log.write(b)));
child.stderr.on('data', (b: Buffer) => (process.stderr.write(b), log.write(b)));
// Ctrl-C reaches Stryker too (same process group): wait for it to clean its sandbox up.
process.on('SIGINT', () => {});
child.on('close', (code) => {
  log.end();
  const seconds = (performance.now() - started) / 1000;
  const summary = summarize(path.join(ROOT, outDir, 'mutation.json'));
  console.log(`mutation: ${name}: ${summary ?? 'no JSON report (see the output above)'}; ${seconds.toFixed(0)} s; reports in ${outDir}/`);
  process.exit(code ?? 1);
});

/** Counts by status and the score, (killed + timeout) / (killed + timeout + survived + no coverage), from Stryker's JSON report. */
function summarize(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as { files: Record<string, { mutants: { status: string }[] }> };
  const counts = new Map<string, number>();
  for (const f of Object.values(report.files)) for (const m of f.mutants) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  const n = (s: string) => counts.get(s) ?? 0;
  const detected = n('Killed') + n('Timeout');
  const valid = detected + n('Survived') + n('NoCoverage');
  const score = valid === 0 ? 'no mutants' : `${((100 * detected) / valid).toFixed(2)}% killed`;
  const each = [...counts].map(([s, c]) => `${c} ${s}`).join(', ');
  return `${score} (${each})`;
}
