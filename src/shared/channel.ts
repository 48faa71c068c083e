// A duplex stream of msgpack frames: the control pipe of one worker, seen from either end.
// msgpack values are self-delimiting, so frames need no length prefix.
import type { Duplex } from 'node:stream';
import { Packr, Unpackr } from 'msgpackr';

// Plain maps (no record extension): every frame decodes on its own, in any order.
const packr = new Packr({ useRecords: false });

export class Channel<In, Out> {
  private readonly unpackr = new Unpackr({ useRecords: false });
  private pending: Buffer | null = null;

  constructor(
    private readonly socket: Duplex,
    onMessage: (m: In) => void,
  ) {
    socket.on('data', (chunk: Buffer) => {
      const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      this.pending = null;
      const messages: In[] = [];
      try {
        this.unpackr.unpackMultiple(data, (value: unknown) => {
          messages.push(value as In);
        });
      } catch (err) {
        // A frame cut at the chunk boundary: keep its bytes for the next chunk.
        const e = err as { incomplete?: boolean; lastPosition?: number };
        if (!e.incomplete) throw err;
        this.pending = Buffer.from(data.subarray(e.lastPosition ?? 0));
      }
      for (const m of messages) onMessage(m);
    });
  }

  send(message: Out): void {
    this.socket.write(packr.pack(message));
  }

  end(): void {
    this.socket.end();
  }
}

/** Exposed for tests of the framing. */
export const encodeFrame = (m: unknown): Buffer => packr.pack(m);
