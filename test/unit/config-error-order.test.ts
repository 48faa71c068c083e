// A config with a mistake in every section reports them one at a time, in the order the sections
// are read: fixing the one reported brings up the next, down to a valid config. Which mistake a
// user sees first is part of the behaviour (the validator reads section by section, and the
// checks across sections come after the sections they read).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-order-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const { validate } = configChecks({ configPath: null, cwd: dir });

/** The sections a mistake is made inside of (minimalConfig has them). */
interface Doc {
  [key: string]: unknown;
  data: { train: Raw };
  training: Raw;
  optimizer: Raw;
}
const good = (): Raw => minimalConfig({ data: { train: { type: 'mnist' }, evalFraction: 0.1 } });

/** One mistake each, by the key path its error names, in the order they must be reported. */
const MISTAKES: Array<[string, (r: Doc) => void]> = [
  ['name', (r) => void (r.name = 'my run')],
  ['model', (r) => void (r.model = {})],
  ['loss', (r) => void (r.loss = 'nope')],
  ['lossWeights', (r) => void (r.lossWeights = [])],
  ['data.train.count', (r) => void (r.data.train.count = 0)],
  ['training.batchSize', (r) => void (r.training.batchSize = 0)],
  ['optimizer.name', (r) => void (r.optimizer.name = 'nope')],
  ['schedule.name', (r) => void (r.schedule = { name: 'nope' })],
  ['devices.simulate', (r) => void (r.devices = { simulate: -1 })],
  ['log.every', (r) => void (r.log = { every: 0 })],
  ['eval.topK', (r) => void (r.eval = { topK: 0 })],
  ['metrics[0]', (r) => void (r.metrics = ['nope'])],
  ['checkpoint.keep', (r) => void (r.checkpoint = { keep: 0 })],
  // The checks across sections: a monitor against the metrics, then labels against the loss.
  ['training.earlyStopping.monitor', (r) => void (r.training.earlyStopping = { monitor: 'eval.nope' })],
  ['reliability.maxRestarts', (r) => void (r.reliability = { maxRestarts: -1 })],
  ['data.train.labels', (r) => void (r.data.train.labels = 'index')],
  ['runDir', (r) => void (r.runDir = 5)],
];

function withMistakes(keyPaths: readonly string[]): Raw {
  const raw = good() as Doc;
  for (const [keyPath, make] of MISTAKES) if (keyPaths.includes(keyPath)) make(raw);
  return raw;
}

test('every section with a mistake: the errors come one at a time, in the order the sections are read', () => {
  let left = MISTAKES.map(([keyPath]) => keyPath);
  const reported: string[] = [];
  while (left.length > 0) {
    const err = (() => {
      try {
        validate(withMistakes(left));
      } catch (e) {
        return e as { code?: string; keyPath?: string };
      }
      return null;
    })();
    assert.ok(err, `nothing refused with ${left.join(', ')} wrong`);
    assert.equal(err.code, 'E_CONFIG');
    reported.push(err.keyPath!);
    if (!left.includes(err.keyPath!)) break;
    left = left.filter((k) => k !== err.keyPath);
  }
  assert.deepEqual(
    reported,
    MISTAKES.map(([keyPath]) => keyPath),
  );
  assert.equal(validate(withMistakes([])).name, 'run');
});
