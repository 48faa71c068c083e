// A mistyped command is named with the command it is closest to; a word near none lists them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

test('`trian` suggests train, exit 2', () => {
  const r = runCli(['trian', 'exp.yaml']);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'error E_USAGE: unknown command "trian": did you mean train?\n  hint: the commands are train, eval, predict, report, benchmark, devices, nets, shards, launch; mgpu-train --help\n',
  );
});

test('`reprot` suggests report; a word near no command suggests nothing', () => {
  assert.match(runCli(['reprot', 'runs/x']).stderr, /unknown command "reprot": did you mean report\?/);
  const r = runCli(['fit', 'exp.yaml']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: unknown command "fit"\n {2}hint: the commands are train, eval/);
});
