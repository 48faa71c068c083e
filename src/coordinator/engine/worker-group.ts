// The worker processes of a run, as one explicit state machine (GROUP_MOVES; every change of
// state goes through moveTo, and any other move is an E_INTERNAL error):
//
//   starting ──every rank ready, layouts agree──▶ ready ──requests sent──▶ stepping ──every reply──▶ ready
//   starting, stepping ──a worker exits, reports an error or misses its deadline──▶ failed
//   failed ──every failed rank restarted (restart) or retired (retire)──▶ ready, or back to
//            starting when it failed there (a worker that failed to start, under restart/reshard)
//   any state but stopped ──stop()──▶ stopped
//
// Each worker is spawned with CUDA_VISIBLE_DEVICES set before anything can import tfjs, the
// slab descriptor at fd 3, a control socket at fd 4 and the BatchNorm exchange's at fd 5. A
// request waits for one reply, within a deadline; `all` waits until every rank asked has answered
// or failed, so no reply is ever in flight when the caller retries, and then reports each failure
// with rank, GPU and phase.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { Channel } from '../../shared/channel.ts';
import { MgpuError, WorkerError } from '../../shared/errors.ts';
import type { ModelLayout } from '../../shared/layout.ts';
import type { InitMessage, ReadyMessage, ToCoordinator, ToWorker } from '../../shared/protocol.ts';
import { childExecArgv, projectFile } from '../../shared/runtime.ts';
import type { Slab } from '../../shared/slab.ts';
import type { WorkerDevice } from '../devices/devices.ts';
import { isDawnNoise } from '../devices/webgpu-probe.ts';
import { checkAdapters } from '../devices/adapter-agreement.ts';
import { checkLayoutsAgree } from './layout-agreement.ts';

export type GroupState = 'starting' | 'ready' | 'stepping' | 'failed' | 'stopped';

/** The moves the worker group may make, as torchrun's WorkerState; any other is a bug. */
export const GROUP_MOVES: Readonly<Record<GroupState, readonly GroupState[]>> = {
  starting: ['ready', 'failed', 'stopped'], // every rank reported the same layout | a rank failed to start
  ready: ['stepping', 'stopped'], // requests sent (step, eval, predict, attach)
  stepping: ['ready', 'failed', 'stopped'], // every rank replied | a rank failed or missed its deadline
  failed: ['starting', 'ready', 'stopped'], // every failed rank restarted or retired: back to where it failed
  stopped: [],
};

/** Throws E_INTERNAL unless the table allows the move. */
export function checkMove(from: GroupState, to: GroupState): void {
  if (!GROUP_MOVES[from].includes(to)) {
    throw new MgpuError('E_INTERNAL', `worker group: no move from ${from} to ${to} (allowed from ${from}: ${GROUP_MOVES[from].join(', ') || 'none'})`);
  }
}

type Reply = Exclude<ToCoordinator, { type: 'error' }>;
type InitFields = Omit<InitMessage, 'type' | 'rank' | 'workers' | 'gpu' | 'simulated'>;

/** Thrown by `all` when one or more ranks failed; `failures` is in rank order, `replies` those of the others. */
export class GroupFailure extends MgpuError {
  constructor(
    readonly failures: WorkerError[],
    readonly replies: Reply[] = [],
  ) {
    super('E_WORKER', failures.map((f) => f.message).join('; '), { hint: failures[0]!.hint });
  }
}

/**
 * What start-up does with a worker that failed to start (reliability.onWorkerFailure): restart
 * it or retire it; it throws to end the run.
 */
export type StartFailurePolicy = (failure: WorkerError, device: WorkerDevice) => 'restart' | 'retire';

export interface StartOptions {
  /** Aborted (Ctrl-C): no worker is spawned after it, those that started are killed, and start throws its reason. */
  abort?: AbortSignal;
  /** Default: the first failure ends the start-up. */
  onFailure?: StartFailurePolicy;
  /** Told of each worker spawned, restarts included (the BatchNorm relay reads its fd 5); may say when it waits on its peers. */
  onSpawn?: (rank: number, child: ChildProcess, group: WorkerGroup) => (() => boolean) | undefined;
}

const OUTPUT_TAIL = 30;
const STOP_GRACE_MS = 3000;

class WorkerHandle {
  readonly channel: Channel<ToCoordinator, ToWorker>;
  private pending: { resolve: (m: Reply) => void; reject: (e: WorkerError) => void; timer: NodeJS.Timeout } | null = null;
  private phase = 'start';
  private stall: WorkerError | null = null;
  exited = false;
  private exitedHow: string | null = null;
  readonly tail: string[] = [];
  readonly exitPromise: Promise<void>;

  constructor(
    readonly rank: number,
    readonly device: WorkerDevice,
    readonly child: ChildProcess,
    private readonly waitsOnPeers?: () => boolean,
  ) {
    this.channel = new Channel<ToCoordinator, ToWorker>(child.stdio[4] as Duplex, (m) => this.onMessage(m));
    (child.stdio[4] as Duplex).on('error', () => {});
    this.forward(child.stdout);
    this.forward(child.stderr);
    this.exitPromise = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.exitedHow = how;
        this.fail(this.stall ?? this.error(`the worker process ${how}`));
        resolve();
      }),
    );
  }

  private forward(stream: NodeJS.ReadableStream | null): void {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        this.tail.push(line);
        if (this.tail.length > OUTPUT_TAIL) this.tail.shift();
        if (!isNoise(line)) process.stderr.write(`[rank ${this.rank}] ${line}\n`);
      }
    });
  }

  private error(message: string, opts: { stack?: string; hint?: string } = {}): WorkerError {
    const tail = this.tail.filter((l) => l.trim()).slice(-8);
    const hint = opts.hint ?? (tail.length ? `its last output:\n    ${tail.join('\n    ')}` : undefined);
    return new WorkerError(this.rank, this.device.cudaVisibleDevices, this.phase, message, { stack: opts.stack, hint });
  }

  private onMessage(m: ToCoordinator): void {
    if (m.type === 'error') {
      // A user-facing error raised in the worker (bad model, bad backend) keeps its own code.
      const err = this.error(m.message, { stack: m.stack, hint: m.hint });
      if (m.code && m.code !== 'E_WORKER' && m.code !== 'E_INTERNAL') {
        Object.assign(err, { code: m.code, exitCode: 2 });
        err.message = `rank ${this.rank} (GPU ${this.device.cudaVisibleDevices}): ${m.message}`;
      }
      this.fail(err);
      return;
    }
    const p = this.pending;
    this.pending = null;
    if (p) clearTimeout(p.timer);
    p?.resolve(m);
  }

  private fail(err: WorkerError): void {
    const p = this.pending;
    this.pending = null;
    if (p) clearTimeout(p.timer);
    p?.reject(err);
  }

  /** Every wait on a worker has a deadline: a worker that hangs is killed, never waited for forever. */
  request<R extends Reply>(message: ToWorker, phase: string, deadlineMs: number): Promise<R> {
    this.phase = phase;
    // It exited between requests: the next one fails, in its own phase, with how it exited.
    if (this.exited) return Promise.reject(this.error(this.exitedHow ? `the worker process ${this.exitedHow}` : 'the worker is not running'));
    if (this.pending) throw new MgpuError('E_INTERNAL', `rank ${this.rank} already has a request in flight`);
    return new Promise<R>((resolve, reject) => {
      const started = Date.now();
      let excused = false;
      const onDeadline = () => {
        // Blocked in the BatchNorm exchange, it waits on a peer, whose own deadline names it: once, one more.
        if (!excused && (excused = this.waitsOnPeers?.() ?? false)) return void (this.pending!.timer = setTimeout(onDeadline, deadlineMs));
        // A stalled worker is killed: its exit then fails the request with this message.
        const secs = ((Date.now() - started) / 1000).toFixed(1);
        this.stall = this.error(`stalled: no reply after ${secs} s (deadline ${(deadlineMs / 1000).toFixed(1)} s)`, {
          hint: `the worker was killed; see ${/^(init|attach)\b/.test(this.phase) ? 'reliability.startTimeout' : 'reliability.stepTimeout and reliability.stallFactor'}`,
        });
        this.child.kill('SIGKILL');
      };
      const timer = setTimeout(onDeadline, deadlineMs);
      this.pending = { resolve: resolve as (m: Reply) => void, reject, timer };
      this.channel.send(message);
    });
  }
}

// tfjs's advice to install tfjs-node, printed by every simulated worker in a frame of '=' lines:
// its one line of advice is shown once; the frame, blank lines and Dawn's notes never.
let adviceShown = false;
export function isNoise(line: string): boolean {
  if (isDawnNoise(line) || /^\s*(=+\s*)?$/.test(line)) return true;
  if (/Hi, looks like you are running TensorFlow\.js in Node\.js/.test(line)) {
    if (adviceShown) return true;
    adviceShown = true;
  }
  return false;
}

export class WorkerGroup {
  private current: GroupState = 'starting';
  /** The ranks whose failure the last `all` reported, until each is restarted or retired. */
  private readonly failedRanks = new Set<number>();
  /** Where the group goes once every failed rank is restarted or retired. */
  private resumeTo: 'starting' | 'ready' = 'ready';
  layout!: ModelLayout;
  backend = '';
  /** Each rank's `ready`: the backend and adapter it really computes on. */
  ready: ReadyMessage[] = [];
  /** Ranks that take part in steps, ascending; reshard retires failed ones. */
  active: number[];

  private constructor(
    private readonly workers: WorkerHandle[],
    private readonly slab: Slab,
    private readonly init: InitFields,
    /** How long a worker may take to start (load tfjs, build the model) or to attach: reliability.startTimeout. */
    readonly startDeadlineMs: number,
    private readonly onSpawn?: StartOptions['onSpawn'],
  ) {
    this.active = workers.map((w) => w.rank);
  }

  get state(): GroupState {
    return this.current;
  }

  /** The one place the state changes. */
  private moveTo(to: GroupState): void {
    checkMove(this.current, to);
    this.current = to;
  }

  /** A failed rank was restarted or retired; once none is left the group is back where it failed. */
  private recovered(rank: number): void {
    this.failedRanks.delete(rank);
    if (this.failedRanks.size === 0) this.moveTo(this.resumeTo);
  }

  private expectFailed(rank: number, what: string): void {
    if (this.current !== 'failed' || !this.failedRanks.has(rank)) {
      throw new MgpuError(
        'E_INTERNAL',
        `worker group: ${what} rank ${rank}, which has not failed (state ${this.current}, failed ranks [${[...this.failedRanks].join(', ')}])`,
      );
    }
  }

  get size(): number {
    return this.workers.length;
  }

  device(rank: number): WorkerDevice {
    return this.workers[rank]!.device;
  }

  /**
   * Spawns one worker per device, sends `init`, and checks that every rank reports the same
   * layout. A worker that fails to start is restarted or retired as `onFailure` says. When
   * `abort` fires, no worker is spawned after it, those that started are killed, and start
   * throws the abort's reason.
   */
  static async start(devices: WorkerDevice[], slab: Slab, init: InitFields, startDeadlineMs: number, opts: StartOptions = {}): Promise<WorkerGroup> {
    const { abort } = opts;
    const group = new WorkerGroup([], slab, init, startDeadlineMs, opts.onSpawn);
    const killAll = () => group.killAll();
    abort?.addEventListener('abort', killAll);
    try {
      for (const [rank, device] of devices.entries()) {
        abort?.throwIfAborted();
        group.workers.push(group.spawn(rank, device));
        // Each spawn blocks the event loop for a while: a Ctrl-C is seen between two of them.
        await new Promise((resolve) => setImmediate(resolve));
      }
      abort?.throwIfAborted();
      group.active = devices.map((_, r) => r);
      const ready = new Map<number, ReadyMessage>();
      try {
        for (const r of await group.all<ReadyMessage>((rank) => group.initMessage(rank), 'init', group.active, startDeadlineMs)) ready.set(r.rank, r);
      } catch (err) {
        if (!(err instanceof GroupFailure) || abort?.aborted) throw err;
        for (const r of err.replies as ReadyMessage[]) ready.set(r.rank, r);
        for (const f of err.failures) {
          const r = await group.recoverStart(f, opts.onFailure, abort);
          if (r) ready.set(r.rank, r);
        }
      }
      const reports = group.active.map((r) => ready.get(r)!);
      checkLayoutsAgree(reports.map((r) => r.layout));
      checkAdapters(
        group.active.map((r) => devices[r]!),
        reports,
      );
      group.layout = reports[0]!.layout;
      group.backend = reports[0]!.backend;
      for (const [rank, r] of ready) group.ready[rank] = r;
      group.moveTo('ready');
      return group;
    } catch (err) {
      if (abort?.aborted) group.killAll();
      await group.stop();
      if (abort?.aborted) throw abort.reason;
      throw err instanceof GroupFailure ? err.failures[0] : err;
    } finally {
      abort?.removeEventListener('abort', killAll);
    }
  }

  private spawn(rank: number, device: WorkerDevice): WorkerHandle {
    const child: ChildProcess = spawn(process.execPath, [...childExecArgv(), projectFile('worker/main')], {
      env: { ...process.env, ...device.env, CUDA_VISIBLE_DEVICES: device.cudaVisibleDevices, MGPU_RANK: String(rank) },
      stdio: ['ignore', 'pipe', 'pipe', this.slab.fd, 'pipe', 'pipe'],
    });
    return new WorkerHandle(rank, device, child, this.onSpawn?.(rank, child, this));
  }

  private initMessage(rank: number): ToWorker {
    const d = this.workers[rank]!.device;
    return { type: 'init', rank, workers: this.workers.length, gpu: d.cudaVisibleDevices, simulated: d.simulated, ...this.init };
  }

  /**
   * Sends each rank its message and waits until every one has replied or failed. Replies come
   * back in rank order; any failure throws a GroupFailure after all have settled. A rank that has
   * not replied within `deadlineMs` is killed and fails as stalled: there is no wait without one.
   */
  async all<R extends Reply>(
    message: (rank: number) => ToWorker,
    phase: string,
    ranks: number[],
    deadlineMs: number,
    onReply?: (reply: R, rank: number) => void,
  ): Promise<R[]> {
    // Start-up's `init` runs while starting; everything else from ready, through stepping.
    const stepping = this.current !== 'starting';
    if (stepping) this.moveTo('stepping');
    const settled = await Promise.allSettled(
      ranks.map((r) =>
        this.workers[r]!.request<R>(message(r), phase, deadlineMs).then((reply) => {
          onReply?.(reply, r);
          return reply;
        }),
      ),
    );
    const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as WorkerError] : []));
    if (failures.length) {
      this.resumeTo = stepping ? 'ready' : 'starting';
      this.moveTo('failed');
      for (const f of failures) this.failedRanks.add(f.rank);
      throw new GroupFailure(
        failures,
        settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
      );
    }
    if (stepping) this.moveTo('ready');
    return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
  }

  /**
   * A worker that failed to start (in `init`, or in the first `attach`): restarted (`init`
   * only; the caller attaches) or retired, as `policy` says, until it runs or is retired. The
   * policy throws to end the run, and retiring the last rank ends it too. Returns the new
   * worker's `ready`, or null when the rank was retired.
   */
  async recoverStart(
    failure: WorkerError,
    policy: StartFailurePolicy = (f) => {
      throw f;
    },
    abort?: AbortSignal,
  ): Promise<ReadyMessage | null> {
    for (let f = failure; ;) {
      abort?.throwIfAborted();
      if (policy(f, this.device(f.rank)) === 'retire') {
        await this.retire(f.rank);
        if (this.active.length === 0) throw f;
        return null;
      }
      try {
        return await this.restart(f.rank, null);
      } catch (err) {
        if (!(err instanceof WorkerError) || err.code !== 'E_WORKER') throw err;
        f = err; // the new worker failed to start too
      }
    }
  }

  /**
   * Replaces a failed rank with a new worker on the same GPU; with `attach`, it loads the
   * weights at its next step. Returns the new worker's `ready`.
   */
  async restart(rank: number, attach: ToWorker | null): Promise<ReadyMessage> {
    this.expectFailed(rank, 'restart of');
    const old = this.workers[rank];
    if (!old!.exited) {
      old!.child.kill('SIGKILL');
      await old!.exitPromise;
    }
    const w = this.spawn(rank, old!.device);
    this.workers[rank] = w;
    const ready = await w.request<ReadyMessage>(this.initMessage(rank), 'init (restart)', this.startDeadlineMs);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- layout (declared with !) is unset until start() has every rank's
    if (this.layout) checkLayoutsAgree([this.layout, ready.layout]); // else start() checks them all
    checkAdapters([old!.device], [ready]);
    this.ready[rank] = ready;
    if (attach) await w.request(attach, 'attach (restart)', this.startDeadlineMs);
    this.recovered(rank);
    return ready;
  }

  /** Takes a failed rank out of the step: the survivors share the global batch. */
  async retire(rank: number): Promise<void> {
    this.expectFailed(rank, 'retirement of');
    const w = this.workers[rank];
    if (!w!.exited) {
      w!.child.kill('SIGKILL');
      await w!.exitPromise;
    }
    this.active = this.active.filter((r) => r !== rank);
    this.recovered(rank);
  }

  /** Asks every worker to exit, then kills whoever is still there after a grace period. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.current === 'stopped') return;
    this.moveTo('stopped');
    const alive = this.workers.filter((w) => !w.exited);
    for (const w of alive) {
      try {
        w.channel.send({ type: 'shutdown' });
        w.channel.end();
      } catch {
        // a broken pipe means it is already going
      }
    }
    await Promise.all(
      alive.map(async (w) => {
        const timer = setTimeout(() => w.child.kill('SIGKILL'), graceMs);
        await w.exitPromise;
        clearTimeout(timer);
      }),
    );
  }

  /** Kills every worker at once (a second Ctrl-C). */
  killAll(): void {
    for (const w of this.workers) if (!w.exited) w.child.kill('SIGKILL');
  }
}
