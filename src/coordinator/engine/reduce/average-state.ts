// Non-trainable weights after a step (BatchNorm moving statistics): each rank updated them on
// its own shard, as towers do; the new value is their average weighted by shard size n_i / B,
// summed in rank order (on several machines, each machine's share, then summed over them). The
// EMA, when kept, follows them like the trainable weights.
import type { FlatLayout, SlabLayout } from '../../../shared/layout.ts';
import type { Shard } from '../../../shared/shard.ts';
import type { Slab } from '../../../shared/slab.ts';
import type { Cluster } from '../../devices/cluster.ts';
import { emaDecayAt } from './reducer.ts';

/** What averageState reads and writes (the session's, session.ts). */
export interface StateInputs {
  flat: FlatLayout; // the non-trainables are floats flat.trainable..flat.total
  slab: Slab; // each rank's state region, and the published weights
  layout: SlabLayout;
  master: Float32Array; // the master weights: the statistics' average lands in their tail
  ema: Float32Array | null;
  emaDecay: number | null; // training.ema
  cluster: Cluster; // sums the machines' shares
}

export async function averageState(s: StateInputs, shards: Shard[], batch: number, t: number): Promise<void> {
  const pn = s.flat.total - s.flat.trainable;
  if (pn === 0) return;
  const acc = s.master.subarray(s.flat.trainable);
  if (shards.length === 0) acc.fill(0); // this machine's ranks had no rows: it adds nothing
  // Mapped: each rank's state is read in place; positional: through one local copy.
  const local = s.slab.mode === 'mapped' ? null : new Float32Array(pn);
  shards.forEach((sh, k) => {
    const tmp = local ?? s.slab.floats(s.layout.state[sh.rank]!, pn)!;
    if (local) s.slab.read(s.layout.state[sh.rank]!, local);
    const wgt = (sh.end - sh.start) / batch;
    if (k === 0) for (let i = 0; i < pn; i++) acc[i] = tmp[i]! * wgt;
    else for (let i = 0; i < pn; i++) acc[i]! += tmp[i]! * wgt;
  });
  // Several machines: each summed its own ranks' shares; the statistics are the sum of all.
  await s.cluster.sum(acc, `step ${t}: the BatchNorm statistics`); // t: the 1-based update, the step unless steps were skipped
  if (s.ema && s.emaDecay !== null) {
    const e = s.ema.subarray(s.flat.trainable);
    const keep = 1 - emaDecayAt(s.emaDecay, t);
    for (let i = 0; i < pn; i++) e[i]! -= keep * (e[i]! - acc[i]!);
  }
  // Mapped, the master weights are the slab's weights region: acc is already published.
  if (s.slab.mode !== 'mapped') s.slab.write(s.layout.weights + s.flat.trainable * 4, acc);
}
