// A .ts data module with a top-level await in a folder without package.json is CommonJS to Node,
// which has no top-level await: the command says esbuild's whole reason (file, line, column and
// text, not only "Transform failed with 1 error:") and a hint that works outside this project.
// Both of the hint's ways are then taken here, and each trains.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';
import { FEATURES, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const MODULE = `const scale: number = await Promise.resolve(0.5);
export default async function* () {
  for (let i = 0; i < 12; i++) yield { x: Array.from({ length: ${FEATURES} }, (_, f) => scale * Math.sin(i * 7 + f)), y: [i % 3 === 0 ? 1 : 0, i % 3 === 1 ? 1 : 0, i % 3 === 2 ? 1 : 0] };
}
`;

/** An experiment in a fresh folder (no package.json in it or above) whose data is `name`. */
function experiment(name: string): { dir: string; file: string; train: (module?: string) => ReturnType<typeof runCli> } {
  const dir = tempDir('tla-hint');
  fs.writeFileSync(path.join(dir, name), MODULE);
  const file = path.join(dir, 'exp.yaml');
  const train = (module = name) => {
    fs.writeFileSync(
      file,
      stringify({
        model: { module: writeModelModule(dir, 'mlp') },
        loss: 'categoricalCrossentropy',
        data: { train: { type: 'module', module: `./${module}` } },
        training: { batchSize: 6, steps: 1 },
        optimizer: { name: 'sgd' },
      }),
    );
    return runCli(['train', file, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, `run-${module}`)]);
  };
  return { dir, file, train };
}

test('a top-level await in a .ts module outside a package: the whole reason, and a hint that works', () => {
  const { dir, train } = experiment('samples.ts');
  let dirUp = dir;
  for (; dirUp !== path.dirname(dirUp); dirUp = path.dirname(dirUp)) assert.ok(!fs.existsSync(path.join(dirUp, 'package.json')), dirUp);
  const r = train();
  assert.equal(r.code, 2, r.stderr);
  const file = path.join(dir, 'samples.ts');
  assert.ok(
    r.stderr.includes(
      `error E_DATA: data.train: module ${file} (data.train.module) failed to import: ${file}:1:22: Top-level await is currently not supported with the "cjs" output format\n`,
    ),
    r.stderr,
  );
  assert.doesNotMatch(r.stderr, /Transform failed|node --import tsx/);
  const hint = /^ {2}hint: (.*)$/m.exec(r.stderr)?.[1] ?? '';
  assert.match(
    hint,
    new RegExp(
      `put a package\\.json holding \\{"type": "module"\\} in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, or rename the file to samples\\.mts \\(and data\\.train\\.module with it\\)$`,
    ),
  );

  // The hint's second way: the file renamed to .mts (the config with it).
  fs.renameSync(file, path.join(dir, 'samples.mts'));
  const renamed = train('samples.mts');
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.match(renamed.stdout, /step 1\/1/);
});

test('the hint\'s first way: a package.json of "type": "module" beside the module', () => {
  const { dir, train } = experiment('samples.ts');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const r = train();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /step 1\/1/);
});
