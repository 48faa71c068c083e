// With data.threads, each thread imports a map-style module itself: a module that fails to import
// in a thread, or whose length there differs from the coordinator's, is an E_DATA naming the
// module, met by the first rows asked for (not a hang, not a crash of the pool).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mapStyleDataset } from '../../src/data/map-module.ts';
import type { MapStyle } from '../../src/data/map-style.ts';
import { produceModule } from '../../src/data/sample-module.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('map-thread-load');

/** The error of the first rows asked for from `body`'s module in 1 thread. */
async function firstRowsError(name: string, body: string): Promise<Error & { code?: string }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `import { isMainThread } from 'node:worker_threads';\n${body}\n`);
  const made = await produceModule({ type: 'module', module: file }, 'data.train', null);
  const ds = await mapStyleDataset(made.produced as MapStyle, made.where, 'data.train', made.file, 1);
  try {
    await ds.pipeline!.ready(Uint32Array.of(1, 2), 0);
    return assert.fail('the rows should not be made');
  } catch (err) {
    return err as Error & { code?: string };
  } finally {
    await ds.pipeline!.close();
  }
}

const get = 'get: (i: number) => ({ x: [i, 1], y: i % 2 })';

test('a module that fails to import in a thread is an E_DATA naming it', async () => {
  const err = await firstRowsError('no-threads.ts', `if (!isMainThread) throw new Error('not in a thread');\nexport default { length: 4, ${get} };`);
  assert.equal(err.code, 'E_DATA');
  assert.match(
    err.message,
    /^data\.train: module [^ ]*no-threads\.ts \(data\.train\.module\) failed to import: not in a thread \(in a data thread, data\.threads\)$/,
  );
  // A .ts module is CommonJS in a thread: the hint says so (a top-level await is the usual cause).
  assert.match((err as { hint?: string }).hint ?? '', /^in a data thread a \.ts module is loaded as CommonJS .*no top-level await there/);
});

test("a thread's copy of a different length is an E_DATA naming the module and both lengths", async () => {
  const err = await firstRowsError('by-thread.ts', `export default () => ({ length: isMainThread ? 4 : 5, ${get} });`);
  assert.equal(err.code, 'E_DATA');
  assert.match(err.message, /^data\.train: module [^ ]*by-thread\.ts: its length is 5 in a data thread but 4 in the coordinator/);
});
