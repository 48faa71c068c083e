// What the config tests share: a minimal valid config to vary, and the check that a config is
// refused at a key path with a given message (and hint).
import assert from 'node:assert/strict';
import { validateConfig } from '../../src/config/validate.ts';

export type Raw = Record<string, unknown>;

/**
 * A minimal valid config (a model module model.js, a loss, mnist training data, a batch size and
 * an optimizer), with `over`'s top-level keys in place of these or beside them. A fresh object
 * each call.
 */
export function minimalConfig(over: Raw = {}): Raw {
  return {
    model: { module: 'model.js' },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'mnist' } },
    training: { batchSize: 32 },
    optimizer: { name: 'adam' },
    ...over,
  };
}

/** validateConfig with these options, and `rejects`: the assertion that a config is refused. */
export function configChecks(opts: { configPath: string | null; cwd: string }) {
  const validate = (raw: unknown) => validateConfig(raw, opts);
  /** `raw` is refused with E_CONFIG at `keyPath`, its message matching `message`, and its hint `hint` when one is given. */
  const rejects = (raw: unknown, keyPath: string, message: RegExp, hint?: RegExp) =>
    assert.throws(
      () => validate(raw),
      (e: Error & { code?: string; keyPath?: string; hint?: string }) => {
        assert.equal(e.code, 'E_CONFIG');
        assert.equal(e.keyPath, keyPath, e.message);
        assert.match(e.message, message);
        if (hint) assert.match(e.hint ?? '', hint);
        return true;
      },
    );
  return { validate, rejects };
}
