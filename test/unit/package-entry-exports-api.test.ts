// The package's entry (lib/index.mjs, which ESM makes list its names) exports every value
// src/api.ts exports, and nothing else, each the same object: a name added to the API cannot
// be left out of the package (NET_NAMES was).
import assert from 'node:assert/strict';
import { test } from 'node:test';

test("lib/index.mjs exports exactly src/api.ts's values", async () => {
  const entry = (await import(new URL('../../lib/index.mjs', import.meta.url).href)) as Record<string, unknown>;
  const api = (await import('../../src/api.ts')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(entry).sort(), Object.keys(api).sort());
  for (const k of Object.keys(api)) assert.ok(entry[k] !== undefined, `${k} is undefined in the entry`);
});
