// The compiled JavaScript in dist/ runs only while its stamp is the hash of src/ as it is now: a
// package laid out as mgpu-train's (lib/source-hash.mjs, src/, dist/) imports a module from dist/
// when it was compiled from these sources, and from src/ (through tsx) when a source file changed
// since, when the stamp is missing, or when MGPU_FROM_SOURCE=1 asks for the sources.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/train-fixture.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function layout(): string {
  const pkg = tempDir('dist-fresh');
  fs.mkdirSync(path.join(pkg, 'lib'));
  fs.copyFileSync(path.join(ROOT, 'lib', 'source-hash.mjs'), path.join(pkg, 'lib', 'source-hash.mjs'));
  fs.writeFileSync(path.join(pkg, 'package.json'), '{ "type": "module" }\n');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
  fs.mkdirSync(path.join(pkg, 'src', 'cli'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'src', 'cli', 'marker.ts'), "export const from: string = 'src';\n");
  fs.mkdirSync(path.join(pkg, 'dist', 'cli'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'dist', 'cli', 'marker.js'), "export const from = 'dist';\n");
  return pkg;
}

/** Which copy of cli/marker the package's loader imports, in a fresh process. */
function imported(pkg: string, env: NodeJS.ProcessEnv = {}): string {
  const script = `const m = await import(${JSON.stringify(path.join(pkg, 'lib', 'source-hash.mjs'))}); console.log((await m.importProjectModule('cli/marker')).from);`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, MGPU_FROM_SOURCE: '', ...env },
  }).trim();
}

function stamp(pkg: string): void {
  const script = `const m = await import(${JSON.stringify(path.join(pkg, 'lib', 'source-hash.mjs'))}); process.stdout.write(m.sourceHash());`;
  fs.writeFileSync(path.join(pkg, 'dist', '.source-hash'), execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }) + '\n');
}

test('stamped with the hash of the sources: dist/', () => {
  const pkg = layout();
  stamp(pkg);
  assert.equal(imported(pkg), 'dist');
  assert.equal(imported(pkg, { MGPU_FROM_SOURCE: '1' }), 'src');
});

test('a source file changed, added or renamed since the stamp: src/', () => {
  const pkg = layout();
  stamp(pkg);
  fs.appendFileSync(path.join(pkg, 'src', 'cli', 'marker.ts'), '// edited\n');
  assert.equal(imported(pkg), 'src');
  stamp(pkg);
  assert.equal(imported(pkg), 'dist');
  fs.writeFileSync(path.join(pkg, 'src', 'cli', 'new.ts'), 'export {};\n');
  assert.equal(imported(pkg), 'src');
  stamp(pkg);
  fs.renameSync(path.join(pkg, 'src', 'cli', 'new.ts'), path.join(pkg, 'src', 'cli', 'renamed.ts'));
  assert.equal(imported(pkg), 'src');
});

test('no stamp, or not a hash: src/', () => {
  const pkg = layout();
  assert.equal(imported(pkg), 'src');
  fs.writeFileSync(path.join(pkg, 'dist', '.source-hash'), 'not a hash\n');
  assert.equal(imported(pkg), 'src');
});
