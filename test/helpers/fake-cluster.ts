// Several machines of a cluster in one process, for unit tests of what the machines exchange:
// machine m has workers[m] workers (global ranks after the machines before it), and gather()
// resolves, as MPI's allgather does, once every machine has given its bytes (the same length on
// each), with every machine's copy in machine order: views into one buffer, as cluster.ts gives
// them. `gathers` counts the rounds, `said` what each round was said to be for.
import type { Cluster } from '../../src/coordinator/devices/cluster.ts';
import { assignShards } from '../../src/shared/shard.ts';

export interface FakeClusters {
  machines: Cluster[];
  gathers: () => number;
  said: () => string[];
}

export function fakeClusters(workers: number[]): FakeClusters {
  const rounds: { given: (Uint8Array | undefined)[]; what: string; done: (all: Uint8Array[]) => void; all: Promise<Uint8Array[]> }[] = [];
  const calls = workers.map(() => 0);
  const total = workers.reduce((a, b) => a + b, 0);
  const round = (k: number, what: string) => {
    if (!rounds[k]) {
      let done!: (all: Uint8Array[]) => void;
      const all = new Promise<Uint8Array[]>((resolve) => (done = resolve));
      rounds[k] = { given: workers.map(() => undefined), what, done, all };
    }
    return rounds[k];
  };
  const machines = workers.map((_, rank): Cluster => {
    const offset = workers.slice(0, rank).reduce((a, b) => a + b, 0);
    return {
      rank,
      size: workers.length,
      hosts: workers.map((__, i) => `node-${i}`),
      workers,
      offset,
      where: (r) => `rank ${r} (node-${r})`,
      join: () => Promise.resolve(),
      shards: (batch, active) => assignShards(batch, active, offset, total),
      sum: () => Promise.reject(new Error('fake cluster: sum is not faked')),
      arrive: () => Promise.resolve(),
      gather(bytes, what) {
        const r = round(calls[rank]!++, what);
        r.given[rank] = bytes.slice();
        const given = r.given.filter((b) => b !== undefined);
        if (given.length === workers.length) {
          if (given.some((b) => b.length !== bytes.length)) throw new Error(`fake cluster: gather of unequal lengths ${given.map((b) => b.length).join(', ')}`);
          const recv = new Uint8Array(bytes.length * given.length);
          given.forEach((b, m) => recv.set(b, m * bytes.length));
          r.done(given.map((_b, m) => recv.subarray(m * bytes.length, (m + 1) * bytes.length)));
        }
        return r.all;
      },
      abort: (code) => {
        throw new Error(`fake cluster: abort(${code})`);
      },
      close: () => {},
    };
  });
  return { machines, gathers: () => rounds.length, said: () => rounds.map((r) => r.what) };
}
