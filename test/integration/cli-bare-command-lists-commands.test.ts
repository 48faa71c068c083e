// `mgpu-train` with no command names every command, not only train and devices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

test('the bare command lists every command and exits 2', () => {
  const r = runCli([]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: name a command: train, eval, predict, report, benchmark, devices, nets, shards, launch$/m);
});
