// The benchmark's signals, driven by emitting them in this process: the first one asks to stop
// (start-up aborted, waits told, the baseline's process sent the same signal), a second one kills
// the children, runs what prints the figures and exits 128 + the signal's number; the grace
// period does the same when the stop takes too long; dispose takes every listener off.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test, mock } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { benchmarkSignals, GRACE_MS } from '../../src/benchmark/interrupt.ts';
import { Interrupted } from '../../src/coordinator/console/signals.ts';
import { withoutScratchHints } from '../../src/benchmark/measure.ts';
import { MgpuError } from '../../src/shared/errors.ts';

function fakeChild(): ChildProcess & { got: string[] } {
  const c = new EventEmitter() as unknown as ChildProcess & { got: string[] };
  Object.assign(c, { exitCode: null, signalCode: null, got: [] as string[] });
  c.kill = ((sig: string) => {
    c.got.push(sig);
    return true;
  }) as ChildProcess['kill'];
  return c;
}

/** The signals as the benchmark's own listener gets them (not the test runner's, which may end the run on SIGINT). */
function withSignals(say: (text: string) => void) {
  const before = new Map(['SIGINT', 'SIGTERM', 'SIGHUP'].map((sig) => [sig, process.listeners(sig as NodeJS.Signals)]));
  const s = benchmarkSignals(say);
  const fire = (sig: NodeJS.Signals) => {
    for (const l of process.listeners(sig)) if (!before.get(sig)!.includes(l)) l(sig);
  };
  return { s, fire };
}

function exits(): { codes: number[]; restore(): void } {
  const codes: number[] = [];
  const m = mock.method(process, 'exit', ((code: number) => {
    codes.push(code);
  }) as never);
  return { codes, restore: () => m.mock.restore() };
}

test('the first signal: asked to stop, the start-up aborted, waits told, the child sent it; the second: everything stopped now', () => {
  const said: string[] = [];
  const { s, fire } = withSignals((t) => said.push(t));
  const exit = exits();
  try {
    assert.equal(s.requested(), null);
    let told = 0;
    const off = s.onRequested(() => told++);
    const offToo = s.onRequested(() => told++);
    offToo();
    const child = fakeChild();
    const gone = fakeChild();
    Object.assign(gone, { exitCode: 0 });
    const killed = fakeChild();
    Object.assign(killed, { signalCode: 'SIGTERM' });
    s.watchChild(killed);
    s.watchChild(child);
    s.watchChild(gone);
    let aborted: unknown = null;
    let stoppedNow = 0;
    let gaveUp: string | null = null;
    s.onStopNow(() => stoppedNow++);
    s.onGiveUp((sig) => (gaveUp = sig));
    void s.duringStartup(async (abort) => {
      abort.addEventListener('abort', () => (aborted = abort.reason));
    });
    fire('SIGINT');
    assert.equal(s.requested(), 'SIGINT');
    assert.ok(aborted instanceof Interrupted && aborted.signal === 'SIGINT');
    assert.equal(told, 1);
    assert.deepEqual(child.got, ['SIGINT']);
    assert.deepEqual(gone.got, [], 'an ended child is not signalled');
    assert.deepEqual(killed.got, [], 'a child ended by a signal is not signalled');
    assert.equal(said[0], 'SIGINT: stopping the benchmark; the figures measured so far are kept (press Ctrl-C again to stop at once)');
    assert.deepEqual([stoppedNow, gaveUp, exit.codes.length], [0, null, 0]);
    // after the first: a new wait is told at once, a new child sent the signal at once
    let late = 0;
    s.onRequested(() => late++);
    assert.equal(late, 1);
    const after = fakeChild();
    s.watchChild(after);
    assert.deepEqual(after.got, ['SIGINT']);
    off();
    fire('SIGTERM');
    assert.equal(said[1], 'SIGTERM again: stopping now');
    assert.deepEqual([stoppedNow, gaveUp, exit.codes], [1, 'SIGINT', [130]]);
    assert.deepEqual(child.got, ['SIGINT', 'SIGKILL']);
    assert.deepEqual(gone.got, []);
  } finally {
    s.dispose();
    exit.restore();
  }
});

test('a forgotten child is not signalled; SIGTERM first says to send it again', () => {
  const said: string[] = [];
  const { s, fire } = withSignals((t) => said.push(t));
  try {
    const child = fakeChild();
    s.watchChild(child)();
    fire('SIGTERM');
    assert.deepEqual(child.got, []);
    assert.equal(said[0], 'SIGTERM: stopping the benchmark; the figures measured so far are kept (send SIGTERM again to stop at once)');
  } finally {
    s.dispose();
  }
});

test('a signal after a start-up ended does not abort it', async () => {
  const { s, fire } = withSignals(() => {});
  try {
    const abort = await s.duringStartup(async (a) => a);
    fire('SIGINT');
    assert.equal(abort.aborted, false);
  } finally {
    s.dispose();
  }
});

test('a signal before the start-up: it is aborted as it begins', async () => {
  const { s, fire } = withSignals(() => {});
  try {
    fire('SIGHUP');
    const reason = await s.duringStartup(async (abort) => abort.reason as unknown);
    assert.ok(reason instanceof Interrupted && reason.signal === 'SIGHUP');
  } finally {
    s.dispose();
  }
});

test(`a stop that takes longer than ${GRACE_MS / 1000} s: everything stopped then`, () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const said: string[] = [];
  const { s, fire } = withSignals((t) => said.push(t));
  const exit = exits();
  try {
    const child = fakeChild();
    s.watchChild(child);
    let gaveUp: string | null = null;
    s.onGiveUp((sig) => (gaveUp = sig));
    fire('SIGINT');
    mock.timers.tick(GRACE_MS - 1);
    assert.deepEqual([gaveUp, exit.codes], [null, []]);
    mock.timers.tick(1);
    assert.equal(said[1], 'SIGINT: not stopped after 5 s: stopping now');
    assert.deepEqual([gaveUp, exit.codes, child.got], ['SIGINT', [130], ['SIGINT', 'SIGKILL']]);
  } finally {
    s.dispose();
    exit.restore();
    mock.timers.reset();
  }
});

test('a stop in time: dispose clears the grace period and takes the listeners off', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const before = process.listenerCount('SIGINT');
  const { s, fire } = withSignals(() => {});
  const exit = exits();
  try {
    assert.equal(process.listenerCount('SIGINT'), before + 1);
    assert.equal(process.listenerCount('SIGTERM') > 0 && process.listenerCount('SIGHUP') > 0, true);
    fire('SIGINT');
    s.dispose();
    assert.equal(process.listenerCount('SIGINT'), before);
    mock.timers.tick(GRACE_MS * 2);
    assert.deepEqual(exit.codes, []);
  } finally {
    exit.restore();
    mock.timers.reset();
  }
});

test("a failed count's error keeps every hint but those naming its scratch run directory", () => {
  const dir = '/tmp/mgpu-benchmark-abc';
  const err = new MgpuError('E_DATA', 'sample 6: bad', {
    hint: `check the file\n  hint: the last step is in ${dir}/checkpoints/step-6; continue with --resume ${dir}`,
    exitCode: 2,
  });
  const said = withoutScratchHints(err, dir) as MgpuError;
  assert.deepEqual([said.code, said.message, said.hint, said.exitCode], ['E_DATA', 'sample 6: bad', 'check the file', 2]);
  const only = withoutScratchHints(new MgpuError('E_WORKER', 'x', { hint: `continue with --resume ${dir}` }), dir) as MgpuError;
  assert.deepEqual([only.hint, only.exitCode], [undefined, 1]);
  const other = new MgpuError('E_DATA', 'y', { hint: 'nothing of it' });
  assert.equal(withoutScratchHints(other, dir), other);
  const plain = new Error(dir);
  assert.equal(withoutScratchHints(plain, dir), plain);
  const bare = new MgpuError('E_DATA', 'z');
  assert.equal(withoutScratchHints(bare, dir), bare);
});
