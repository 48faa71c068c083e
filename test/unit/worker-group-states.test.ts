// The worker group's state machine (src/coordinator/engine/worker-group.ts): the table of allowed moves
// is exactly the drawn one, every other move is an E_INTERNAL error, the state cannot be written
// from outside, and restart/retire/all refuse to run from a state that does not allow them.
// No worker process is started here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMove, GROUP_MOVES, WorkerGroup, type GroupState } from '../../src/coordinator/engine/worker-group.ts';
import { MgpuError } from '../../src/shared/errors.ts';

const STATES: GroupState[] = ['starting', 'ready', 'stepping', 'failed', 'stopped'];

// As drawn at the top of worker-group.ts.
const LEGAL = new Set([
  'starting>ready',
  'starting>failed',
  'starting>stopped',
  'ready>stepping',
  'ready>stopped',
  'stepping>ready',
  'stepping>failed',
  'stepping>stopped',
  'failed>starting',
  'failed>ready',
  'failed>stopped',
]);

const isInternal = (err: unknown) => err instanceof MgpuError && err.code === 'E_INTERNAL' && err.exitCode === 1;

test('the table allows exactly the drawn moves', () => {
  const table = new Set(STATES.flatMap((from) => GROUP_MOVES[from].map((to) => `${from}>${to}`)));
  assert.deepEqual([...table].sort(), [...LEGAL].sort());
  assert.deepEqual(GROUP_MOVES.stopped, [], 'stopped is final');
});

test('every move the table does not allow is an E_INTERNAL error naming both states', () => {
  for (const from of STATES) {
    for (const to of STATES) {
      if (LEGAL.has(`${from}>${to}`)) {
        assert.doesNotThrow(() => checkMove(from, to), `${from} -> ${to}`);
      } else {
        assert.throws(
          () => checkMove(from, to),
          (err: unknown) => isInternal(err) && (err as Error).message.includes(`from ${from} to ${to}`),
          `${from} -> ${to}`,
        );
      }
    }
  }
});

test('state is read-only from outside the group', () => {
  const d = Object.getOwnPropertyDescriptor(WorkerGroup.prototype, 'state');
  /* eslint-disable @typescript-eslint/unbound-method -- a property descriptor's accessors, not called */
  assert.ok(d?.get, 'state is a getter');
  assert.equal(d.set, undefined, 'state has a setter');
  /* eslint-enable @typescript-eslint/unbound-method */
  // Checked by tsc (npm run typecheck), never run:
  const _write = (g: WorkerGroup) => {
    // @ts-expect-error state is read-only
    g.state = 'ready';
  };
});

/** A group with no worker processes, through its private constructor. */
function emptyGroup(): WorkerGroup {
  const Ctor = WorkerGroup as unknown as new (...a: unknown[]) => WorkerGroup;
  return new Ctor([], null, {}, 1000);
}

test('restart and retire of a rank that has not failed, and requests to a stopped group, are E_INTERNAL', async () => {
  const g = emptyGroup();
  assert.equal(g.state, 'starting');
  await assert.rejects(
    g.retire(0),
    (err: unknown) => isInternal(err) && /retirement of rank 0, which has not failed \(state starting/.test((err as Error).message),
  );
  await assert.rejects(
    g.restart(0, { type: 'shutdown' }),
    (err: unknown) => isInternal(err) && /restart of rank 0, which has not failed/.test((err as Error).message),
  );
  await g.stop();
  assert.equal(g.state, 'stopped');
  await g.stop(); // stopping twice is no move
  await assert.rejects(
    g.all(() => ({ type: 'shutdown' }), 'eval', [], 1000),
    (err: unknown) => isInternal(err) && /no move from stopped to stepping/.test((err as Error).message),
  );
});
