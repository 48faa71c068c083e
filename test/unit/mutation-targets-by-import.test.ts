// What scripts/mutation.ts mutates and which tests judge it: every .ts file under a folder (or the
// files named), and the unit tests that import one of them directly, by a static, side-effect,
// dynamic or re-exporting import; a test that imports a file of the same name elsewhere, or only
// a helper, is not picked. Links to folders (a shared native/build) are found to leave them out
// of Stryker's sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runName, sourceFiles, symlinkedFolders, testsImporting, unitTests } from '../../scripts/mutation-targets.ts';

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mutation-targets-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

test('the files of a folder, and the unit tests that import one of them directly', () => {
  const dir = project({
    'src/a/x.ts': 'export const x = 1;',
    'src/a/sub/y.ts': 'export const y = 2;',
    'src/a/types.d.ts': 'export type T = 1;',
    'src/b/x.ts': 'export const x = 3;',
    'test/unit/static.test.ts': "import { x } from '../../src/a/x.ts';",
    'test/unit/dynamic.test.ts': "const { y } = await import('../../src/a/sub/y.ts');",
    'test/unit/side.test.ts': "import '../../src/a/sub/y.ts';",
    'test/unit/reexport.test.ts': "export { x } from '../../src/a/x.ts';",
    'test/unit/other-x.test.ts': "import { x } from '../../src/b/x.ts';",
    'test/unit/helper.test.ts': "import { h } from '../helpers/h.ts';",
    'test/helpers/h.ts': "export { x as h } from '../../src/a/x.ts';",
  });
  const files = sourceFiles(dir, 'src/a');
  assert.deepEqual(files, ['src/a/sub/y.ts', 'src/a/x.ts']);
  assert.deepEqual(sourceFiles(dir, 'src/b/x.ts'), ['src/b/x.ts']);
  assert.deepEqual(testsImporting(dir, unitTests(dir), files), [
    'test/unit/dynamic.test.ts',
    'test/unit/reexport.test.ts',
    'test/unit/side.test.ts',
    'test/unit/static.test.ts',
  ]);
  assert.deepEqual(testsImporting(dir, unitTests(dir), ['src/b/x.ts']), ['test/unit/other-x.test.ts']);
  assert.throws(() => sourceFiles(dir, 'src/c'), /src\/c does not exist/);
  assert.throws(() => sourceFiles(dir, 'test/helpers/none'), /does not exist/);
});

test("a run's name, and the links to folders left out of the sandbox", () => {
  assert.equal(runName(['src/data/shards']), 'data-shards');
  assert.equal(runName(['src/data/shards/']), 'data-shards');
  assert.equal(runName(['src/coordinator/input-feed.ts', './src/coordinator/machine-rows.ts']), 'coordinator-input-feed+coordinator-machine-rows');
  const dir = project({ 'native/src/a.c': '', 'shared-build/Release/a.node': '' });
  fs.symlinkSync(path.join(dir, 'shared-build'), path.join(dir, 'native', 'build'));
  fs.symlinkSync(path.join(dir, 'native', 'src', 'a.c'), path.join(dir, 'native', 'a-link.c'));
  assert.deepEqual(symlinkedFolders(dir), ['native/build'], 'a link to a file is copied as the file');
});
