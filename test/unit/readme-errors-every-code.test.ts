// The README's Errors section names every error code mgpu-train can raise (the ErrorCode union
// in src/shared/errors.ts), so a new code cannot ship without the README saying what it means.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

test("the README's Errors section names every ErrorCode", () => {
  const union = /export type ErrorCode =([^;]*);/.exec(read('src/shared/errors.ts'));
  assert.ok(union, 'src/shared/errors.ts no longer declares `export type ErrorCode = ...;`');
  const codes = [...union[1]!.matchAll(/'(E_[A-Z_]+)'/g)].map((m) => m[1]!);
  assert.ok(codes.length >= 10, `only ${codes.length} codes found in the ErrorCode union`);
  const section = /\n## Errors\n([\s\S]*?)\n## /.exec(read('README.md'));
  assert.ok(section, 'README.md has no "## Errors" section followed by another section');
  const named = new Set([...section[1]!.matchAll(/`(E_[A-Z_]+)`/g)].map((m) => m[1]!));
  assert.deepEqual(
    codes.filter((c) => !named.has(c)),
    [],
  );
  assert.deepEqual(
    [...named].filter((c) => !codes.includes(c)),
    [],
    'the README names codes that src/shared/errors.ts does not have',
  );
});
