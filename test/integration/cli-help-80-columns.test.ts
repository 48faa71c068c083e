// `mgpu-train --help` and `mgpu-train benchmark --help` at 80 columns read cleanly: no line wider,
// each example's command whole (continued with ` \` where it is longer than the line), and no
// line left holding the end of a list of choices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { HELP_EXAMPLES } from '../../src/cli/help-examples.ts';

const help = (args: string[]) => {
  const r = runCli(args, { env: { ...process.env, COLUMNS: '80' } });
  assert.equal(r.code, 0, r.stderr);
  for (const line of r.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
  return r.stdout;
};

test('mgpu-train --help: every example whole, its description below it', () => {
  const out = help(['--help']);
  const joined = out.replace(/ \\\n {6}/g, ' ').split('\n');
  for (const [command] of HELP_EXAMPLES) assert.ok(joined.includes(`  ${command}`), `not whole on its line: ${command}\n${out}`);
  assert.match(out, /^ {2}mgpu-train train examples\/mnist-mlp\/experiment\.yaml\n {6}train on every visible GPU$/m);
});

test('mgpu-train benchmark --help: the backends in the description, no stray end of a list', () => {
  const out = help(['benchmark', '--help']);
  assert.doesNotMatch(out, /^\s*"?\w+"\]\s*$/m, 'a line holding only the end of a choices list');
  assert.match(out, /--backend +tfjs backend of the workers and of the plain baseline: auto,\n +tfjs-node-gpu, webgpu, tfjs-node, wasm, cpu +\[string\]$/m);
});
