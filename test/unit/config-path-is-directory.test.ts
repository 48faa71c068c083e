// A config path that is a directory is named as one, not as a file with the extension "".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';

test('a directory given as the config file says it is a directory', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-dir-'));
  for (const name of ['exp', 'exp.yaml']) {
    fs.mkdirSync(path.join(dir, name));
    await assert.rejects(loadConfig(name, [], dir), (err: Error & { code?: string; hint?: string }) => {
      assert.equal(err.code, 'E_CONFIG');
      assert.equal(err.message, `config file ${path.join(dir, name)} is a directory`);
      assert.match(err.hint ?? '', /the experiment file \(\.yaml, \.yml, \.json\) inside it/);
      return true;
    });
  }
  fs.rmSync(dir, { recursive: true });
});
