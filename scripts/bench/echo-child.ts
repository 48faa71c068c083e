// A stand-in worker for the latency floor: answers every control message, after spinning on
// the CPU for `busyMs` (0: at once). No tfjs, no slab.
import net from 'node:net';
import { Channel } from '../../src/shared/channel.ts';

type Step = { type: 'step'; step: number; busyMs: number };
const socket = new net.Socket({ fd: 3, readable: true, writable: true });
socket.on('close', () => process.exit(0));
const channel: Channel<Step, { type: 'done'; step: number }> = new Channel(socket, (m) => {
  const t0 = performance.now();
  while (performance.now() - t0 < m.busyMs);
  channel.send({ type: 'done', step: m.step });
});
