import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/run-cli.ts';

test('--help lists the commands and shows an example', () => {
  const r = runCli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /mgpu-train train <config>/);
  assert.match(r.stdout, /mgpu-train devices/);
  assert.match(r.stdout, /Examples:\n\s+mgpu-train train examples\/mnist-mlp\/experiment\.yaml/);
});

test('train --help names every flag', () => {
  const r = runCli(['train', '--help']);
  assert.equal(r.code, 0);
  for (const flag of ['--gpus', '--simulate', '--backend', '--set', '--run-dir']) assert.ok(r.stdout.includes(flag), flag);
});
