// A YAML config with a second document (a `---` line after the first) says so with the file and
// the line, not the yaml package's advice to call one of its functions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';

test('a second YAML document names the file and the line it starts on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-docs-'));
  const file = path.join(dir, 'exp.yaml');
  fs.writeFileSync(file, 'model: { module: model.js }\nloss: meanSquaredError\n---\nname: second\n');
  await assert.rejects(loadConfig(file, [], dir), (err: Error & { code?: string; hint?: string }) => {
    assert.equal(err.code, 'E_CONFIG');
    assert.equal(err.message, `${file}:3: a second YAML document starts here (a line \`---\` after the first document); a config file is one document`);
    assert.doesNotMatch(err.message, /parseAllDocuments/);
    assert.match(err.hint ?? '', /remove that line/);
    return true;
  });
  fs.rmSync(dir, { recursive: true });
});
