// A stand-in worker for the sync benchmark: no tfjs, just the slab traffic of a real worker.
// Slab mode: on `grads` it writes its gradient into its region; on `weights` it reads the new
// weights. IPC mode: the same arrays travel as Node IPC messages instead.
import net from 'node:net';
import { Channel } from '../../src/shared/channel.ts';
import type { SlabLayout } from '../../src/shared/layout.ts';
import { Slab } from '../../src/shared/slab.ts';

type Msg = { type: 'attach'; layout: SlabLayout; rank: number } | { type: 'grads' } | { type: 'weights' };

const mode = process.argv[2];
if (mode === 'ipc') {
  let grads: Float32Array;
  let weights: Float32Array;
  process.on('message', (m: { type: string; p?: number; w?: Float32Array }) => {
    if (m.type === 'init') {
      grads = new Float32Array(m.p!).fill(0.001);
      weights = new Float32Array(m.p!);
      process.send!({ type: 'ok' });
    } else if (m.type === 'grads') {
      process.send!({ type: 'grads', g: grads });
    } else if (m.type === 'weights') {
      weights.set(m.w!);
      process.send!({ type: 'ok' });
    }
  });
} else {
  const slab = new Slab(3);
  const socket = new net.Socket({ fd: 4, readable: true, writable: true });
  socket.on('close', () => process.exit(0));
  let layout: SlabLayout;
  let rank = 0;
  let grads: Float32Array;
  let weights: Float32Array;
  const ch: Channel<Msg, { type: 'ok' }> = new Channel<Msg, { type: 'ok' }>(socket, (m) => {
    if (m.type === 'attach') {
      layout = m.layout;
      rank = m.rank;
      slab.attach(layout);
      grads = new Float32Array(layout.trainable).fill(0.001 * (rank + 1));
      weights = new Float32Array(layout.params);
    } else if (m.type === 'grads') {
      // What a worker does with its gradient once it is out of tfjs: one copy into the slab.
      const view = slab.floats(layout.grads[rank]!, layout.trainable);
      if (view) view.set(grads);
      else slab.write(layout.grads[rank]!, grads);
    } else {
      // 'weights'
      // And what it does before the next step: one copy of the new weights out of the slab.
      const view = slab.floats(layout.weights, layout.params);
      if (view) weights.set(view);
      else slab.read(layout.weights, weights);
    }
    ch.send({ type: 'ok' });
  });
}
