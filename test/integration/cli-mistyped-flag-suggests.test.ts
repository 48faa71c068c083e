// A mistyped flag is named with the flag it is closest to, as a mistyped command is; so is a
// mistyped command after `launch ... --`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

test('--simulat suggests --simulate; exit 2', () => {
  const r = runCli(['train', 'exp.yaml', '--simulat', '2']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: train: unknown option --simulat: did you mean --simulate\?\n {2}hint: usage: mgpu-train train <config>/);
});

test("a mistyped flag is named even when yargs first misses the config it took as the flag's value", () => {
  const r = runCli(['train', '--simulat', '2']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: train: unknown option --simulat: did you mean --simulate\?; train needs the experiment config/);
});

test("each command's own flags: predict --checkpont, eval --em; a flag near none gets no guess", () => {
  assert.match(
    runCli(['predict', 'exp.yaml', '--checkpont', 'r', '--input', 'x.npy', '--output', 'y.npy']).stderr,
    /unknown option --checkpont: did you mean --checkpoint\?/,
  );
  assert.match(runCli(['eval', 'exp.yaml', '--checkpoint', 'r', '--em']).stderr, /unknown option --em: did you mean --ema\?/);
  assert.match(runCli(['train', 'exp.yaml', '--zzzzzzzz']).stderr, /^error E_USAGE: train: unknown option --zzzzzzzz\n/);
});

test('a mistyped hyphenated flag is named once, not again as a camel-cased "unexpected argument"', () => {
  const r = runCli(['train', 'exp.yaml', '--run-dri', 'x']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: train: unknown option --run-dri: did you mean --run-dir\?\n/);
});

test('`launch ... -- trian` suggests train', () => {
  const r = runCli(['launch', '-np', '2', '--', 'trian', 'exp.yaml']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: launch: unknown command "trian" after `--`: did you mean train\? \(only train runs on several machines\)\n/);
});
