// The worker processes of a run, as one explicit state machine:
//
//   starting ──ready+agree──▶ ready ──step──▶ stepping ──▶ ready ... ──stop──▶ stopped
//       │                       │                │
//       └──────────── any worker exits or reports an error ──▶ failed
//
// Each worker is spawned with CUDA_VISIBLE_DEVICES set before anything can import tfjs, the
// slab descriptor at fd 3 and a control socket at fd 4. Every request to a worker waits for one
// reply; a worker that exits, closes its pipe or reports `error` fails every pending request
// with a WorkerError naming its rank, its GPU and the phase it was in.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { Channel } from '../shared/channel.ts';
import { MgpuError, WorkerError } from '../shared/errors.ts';
import type { ModelLayout } from '../shared/layout.ts';
import type { InitMessage, ReadyMessage, ToCoordinator, ToWorker } from '../shared/protocol.ts';
import { childExecArgv, projectFile } from '../shared/runtime.ts';
import type { Slab } from '../shared/slab.ts';
import type { WorkerDevice } from './devices.ts';
import { checkLayoutsAgree } from './layout-agreement.ts';

export type GroupState = 'starting' | 'ready' | 'stepping' | 'failed' | 'stopped';

type Reply = Exclude<ToCoordinator, { type: 'error' }>;

interface Pending {
  resolve: (m: Reply) => void;
  reject: (e: Error) => void;
  phase: string;
}

const STDERR_TAIL = 30;
const STOP_GRACE_MS = 3000;

class WorkerHandle {
  readonly channel: Channel<ToCoordinator, ToWorker>;
  pending: Pending | null = null;
  phase = 'start';
  exited = false;
  readonly tail: string[] = [];

  constructor(readonly rank: number, readonly device: WorkerDevice, readonly child: ChildProcess, onFail: (w: WorkerHandle, e: Error) => void) {
    this.channel = new Channel<ToCoordinator, ToWorker>(child.stdio[4] as Duplex, (m) => this.onMessage(m, onFail));
    const forward = (stream: NodeJS.ReadableStream | null) => {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          this.tail.push(line);
          if (this.tail.length > STDERR_TAIL) this.tail.shift();
          if (!isNoise(line)) process.stderr.write(`[rank ${rank}] ${line}\n`);
        }
      });
    };
    forward(child.stdout);
    forward(child.stderr);
    (child.stdio[4] as Duplex).on('error', () => {});
    child.on('exit', (code, signal) => {
      this.exited = true;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      onFail(this, new WorkerError(rank, device.cudaVisibleDevices, this.phase, `the worker process ${how}`, {
        hint: this.tail.length ? `its last output:\n    ${this.tail.slice(-8).join('\n    ')}` : undefined,
      }));
    });
  }

  private onMessage(m: ToCoordinator, onFail: (w: WorkerHandle, e: Error) => void): void {
    if (m.type === 'error') {
      const err = m.code && m.code !== 'E_WORKER' && m.code !== 'E_INTERNAL'
        ? new MgpuError(m.code as never, `rank ${this.rank} (GPU ${this.device.cudaVisibleDevices}): ${m.message}`, { hint: m.hint })
        : new WorkerError(this.rank, this.device.cudaVisibleDevices, m.phase, m.message, { stack: m.stack, hint: m.hint });
      onFail(this, err);
      return;
    }
    const p = this.pending;
    this.pending = null;
    p?.resolve(m);
  }

  request<R extends Reply>(message: ToWorker, phase: string): Promise<R> {
    if (this.exited) return Promise.reject(new WorkerError(this.rank, this.device.cudaVisibleDevices, phase, 'the worker is not running'));
    if (this.pending) throw new MgpuError('E_INTERNAL', `rank ${this.rank} already has a request in flight (${this.pending.phase})`);
    this.phase = phase;
    return new Promise<R>((resolve, reject) => {
      this.pending = { resolve: resolve as (m: Reply) => void, reject, phase };
      this.channel.send(message);
    });
  }
}

// tfjs's advice to install tfjs-node, printed by every simulated worker: once is enough.
let adviceShown = false;
function isNoise(line: string): boolean {
  if (/Hi, looks like you are running TensorFlow\.js in Node\.js|=====|To speed things up dramatically|Visit https:\/\/github\.com\/tensorflow\/tfjs-node|^\s*$/.test(line)) {
    if (adviceShown) return true;
    adviceShown = true;
  }
  return false;
}

export class WorkerGroup {
  state: GroupState = 'starting';
  layout!: ModelLayout;
  backend = '';
  private failure: Error | null = null;

  private constructor(private readonly workers: WorkerHandle[]) {}

  get size(): number {
    return this.workers.length;
  }

  devices(): WorkerDevice[] {
    return this.workers.map((w) => w.device);
  }

  /** Spawns one worker per device, sends `init`, and checks that every rank reports the same layout. */
  static async start(devices: WorkerDevice[], slab: Slab, init: Omit<InitMessage, 'type' | 'rank' | 'workers' | 'gpu' | 'simulated'>): Promise<WorkerGroup> {
    const entry = projectFile('worker/main');
    const handles: WorkerHandle[] = [];
    const group = new WorkerGroup(handles);
    devices.forEach((device, rank) => {
      const child = spawn(process.execPath, [...childExecArgv(), entry], {
        env: { ...process.env, CUDA_VISIBLE_DEVICES: device.cudaVisibleDevices, MGPU_RANK: String(rank) },
        stdio: ['ignore', 'pipe', 'pipe', slab.fd, 'pipe'],
      });
      handles.push(new WorkerHandle(rank, device, child, (w, e) => group.onWorkerFailure(w, e)));
    });
    try {
      const ready = await group.all<ReadyMessage>((rank) => ({
        type: 'init', rank, workers: devices.length, gpu: devices[rank].cudaVisibleDevices, simulated: devices[rank].simulated, ...init,
      }), 'init');
      checkLayoutsAgree(ready.map((r) => r.layout));
      group.layout = ready[0].layout;
      group.backend = ready[0].backend;
      group.state = 'ready';
      return group;
    } catch (err) {
      await group.stop();
      throw err;
    }
  }

  /** Sends each rank its message and waits for every reply, in rank order. */
  all<R extends Reply>(message: (rank: number) => ToWorker, phase: string, ranks?: number[]): Promise<R[]> {
    const chosen = ranks ?? this.workers.map((w) => w.rank);
    return Promise.all(chosen.map((r) => this.request<R>(r, message(r), phase)));
  }

  request<R extends Reply>(rank: number, message: ToWorker, phase: string): Promise<R> {
    if (this.failure) return Promise.reject(this.failure);
    return this.workers[rank].request<R>(message, phase);
  }

  private onWorkerFailure(w: WorkerHandle, err: Error): void {
    if (this.state === 'stopped') return;
    // The first failure is the cause; later exits are usually its consequence.
    if (!this.failure) {
      this.failure = err;
      this.state = 'failed';
    }
    for (const h of this.workers) {
      const p = h.pending;
      h.pending = null;
      p?.reject(h === w ? err : this.failure);
    }
  }

  /** Asks every worker to exit, then kills whoever is still there after a grace period. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    const alive = this.workers.filter((w) => !w.exited);
    for (const w of alive) {
      try {
        w.channel.send({ type: 'shutdown' });
        w.channel.end();
      } catch {
        // a broken pipe means it is already going
      }
    }
    await Promise.all(alive.map((w) => new Promise<void>((resolve) => {
      if (w.exited) return resolve();
      const timer = setTimeout(() => w.child.kill('SIGKILL'), STOP_GRACE_MS);
      w.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    })));
  }
}
