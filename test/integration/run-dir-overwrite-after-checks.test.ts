// --overwrite removes the earlier run only once the new one has passed every check that comes
// before its first step (the config, the data, the model the workers built): a config that the
// built model refuses (checkpoint.best watching eval.top_k of a 3-class model, with eval.topK 5)
// exits 2 and leaves the earlier run as it was, byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { snapshotFiles, tinyRun } from '../helpers/run-dir-fixture.ts';

test('a config refused before the first step leaves the run --overwrite would replace', async () => {
  const { runDir, config } = tinyRun('overwrite-after-checks');
  const earlier = await runCliAsync(['train', config]);
  assert.equal(earlier.code, 0, earlier.stderr);
  const before = snapshotFiles(runDir);

  const r = await runCliAsync(['train', config, '--overwrite', '--set', 'checkpoint.best={monitor: eval.top_k}']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /checkpoint\.best\.monitor: eval\.top_k is not measured/);
  assert.doesNotMatch(r.stdout, /--overwrite: removed/);
  assert.deepEqual(snapshotFiles(runDir), before, 'the earlier run was touched');
});
