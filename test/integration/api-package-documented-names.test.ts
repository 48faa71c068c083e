// Every name docs/api.md says the package exports can be imported from the package as packed:
// the names of its "The package exports" line and of every `import { ... } from 'mgpu-train'` in
// it, read from the doc here so that the list cannot drift from it. And the converse: every
// name the package's entry exports is on that line. Packed once with --ignore-scripts (its
// prepack would build dist/ and types/, which importing names needs neither of: the entry runs
// from src/ when dist/ is absent), unpacked into a project whose node_modules links this
// repository's dependencies, and imported there by plain node.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/train-fixture.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** The names docs/api.md documents as the package's exports. */
function documentedNames(): { exportsLine: string[]; imported: string[] } {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
  // The line's values, before the types it names ("; its types (...)": not importable at run time).
  const bullet = /^- The package exports ([\s\S]*?); its types/m.exec(doc);
  assert.ok(bullet, 'docs/api.md has no "- The package exports ...; its types ..." line');
  const exportsLine = [...bullet[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((n) => IDENT.test(n));
  const imported = [...doc.matchAll(/import\s*\{([^}]*)\}\s*from\s*'mgpu-train'/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !s.startsWith('type ')),
  );
  return { exportsLine, imported };
}

test('every name docs/api.md documents imports from the packed package, and the package exports no other', (t) => {
  const { exportsLine, imported } = documentedNames();
  assert.ok(exportsLine.length >= 9, `the exports line names only ${exportsLine.join(', ')}`);
  for (const n of imported) assert.ok(exportsLine.includes(n), `docs/api.md imports ${n}, which its exports line does not name`);

  const dir = tempDir('api-package-names');
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  ) as Array<{ filename: string }>;
  const project = path.join(dir, 'consumer');
  const modules = path.join(project, 'node_modules');
  fs.mkdirSync(modules, { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('tar', ['-xzf', path.join(dir, packed[0]!.filename), '-C', dir]);
  fs.renameSync(path.join(dir, 'package'), path.join(modules, 'mgpu-train'));
  for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (!name.startsWith('.') && name !== 'mgpu-train') fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  }
  const script = `const m = await import('mgpu-train');
console.log('NAMES ' + JSON.stringify(Object.fromEntries(Object.keys(m).map((k) => [k, typeof m[k]]))));`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('NAMES '));
  assert.ok(line, r.stdout);
  const got = JSON.parse(line.slice('NAMES '.length)) as Record<string, string>;
  t.diagnostic(`the package exports ${Object.keys(got).join(', ')}`);
  for (const n of exportsLine) assert.ok(n in got && got[n] !== 'undefined', `${n}: documented in docs/api.md, not exported by the package`);
  for (const n of Object.keys(got)) assert.ok(exportsLine.includes(n), `${n}: exported by the package, not on docs/api.md's exports line`);
});
