// A config file over MAX_CONFIG_BYTES is refused before it is read, naming the file and its size;
// a huge YAML once took a minute and gigabytes to report one unknown key.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';

test('a config of 1 MiB + 1 byte is refused at once; one of 1 MiB is read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-size-'));
  const head = 'model: { module: model.js }\nunknownKey: 1\n';
  const big = path.join(dir, 'big.yaml');
  fs.writeFileSync(big, head + '#'.repeat(2 ** 20 + 1 - head.length));
  const started = Date.now();
  await assert.rejects(loadConfig(big, [], dir), (err: Error & { code?: string; hint?: string; exitCode?: number }) => {
    assert.equal(err.code, 'E_CONFIG');
    assert.equal(err.exitCode, 2);
    assert.equal(err.message, `config file ${big} is 1048577 bytes (1.0 MiB), over the 1 MiB a config may be`);
    assert.match(err.hint ?? '', /name data files under data:/);
    return true;
  });
  assert.ok(Date.now() - started < 1000);
  // At the limit the file is parsed: the error is now its unknown key.
  const limit = path.join(dir, 'limit.yaml');
  fs.writeFileSync(limit, head + '#'.repeat(2 ** 20 - head.length));
  await assert.rejects(loadConfig(limit, [], dir), { code: 'E_CONFIG', message: /unknownKey/ });
  fs.rmSync(dir, { recursive: true });
});
