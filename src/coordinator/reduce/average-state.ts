// Non-trainable weights after a step (BatchNorm moving statistics): each rank updated them on
// its own shard, as towers do; the new value is their average weighted by shard size n_i / B,
// summed in rank order.
import type { Session } from '../session.ts';

export function averageState(s: Session, ranks: number[], sizes: number[], batch: number): void {
  const pn = s.flat.total - s.flat.trainable;
  if (pn === 0) return;
  const acc = s.master.subarray(s.flat.trainable);
  const tmp = new Float32Array(pn);
  ranks.forEach((rank, k) => {
    s.slab.read(s.layout.state[rank], tmp);
    const wgt = sizes[rank] / batch;
    if (k === 0) for (let i = 0; i < pn; i++) acc[i] = tmp[i] * wgt;
    else for (let i = 0; i < pn; i++) acc[i] += tmp[i] * wgt;
  });
  s.slab.write(s.layout.weights + s.flat.trainable * 4, acc);
}
