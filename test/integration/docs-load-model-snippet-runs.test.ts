// docs/runs.md's snippet that loads a saved model in Node with plain @tensorflow/tfjs runs as
// written: taken from the doc (the code block that loads load-model.mjs), pointed at a real
// run's final/, run by plain node; it prints the model's outputs for a row of zeros, which are
// the saved model's (a softmax over 3 classes here: three numbers that sum to 1).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runCliAsync } from '../helpers/chaos.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test("docs/runs.md's model-loading snippet loads a run's final model and predicts", async () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'runs.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/g;
  const snippet = [...doc.matchAll(block)].map((m) => m[1]!).find((code) => /load-model\.mjs/.test(code));
  assert.ok(snippet, 'docs/runs.md has no load-model.mjs code block');
  const code = snippet.replace(/^ {2}/gm, '');
  assert.ok(code.includes("'runs/<name>/final'"), 'the snippet no longer reads runs/<name>/final');

  const { dir, runDir, config } = tinyRun('docs-load-model');
  const r = await runCliAsync(['train', config]);
  assert.equal(r.code, 0, r.stderr);
  const script = path.join(dir, 'load-model.mjs');
  fs.writeFileSync(script, code.replace("'runs/<name>/final'", JSON.stringify(path.join(runDir, 'final'))));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: dir, env, timeout: 120_000 });
  // tensor.print(): "Tensor\n    [[a, b, c],]"
  const numbers = /\[\[([^\]]*)\]/.exec(stdout)?.[1]?.split(',').map(Number);
  assert.ok(numbers, stdout);
  assert.equal(numbers.length, 3, stdout);
  assert.ok(Math.abs(numbers.reduce((a, b) => a + b, 0) - 1) < 1e-4, stdout);
});
