// Where made rows wait between their making (in a decoding thread, or a map-style module's get()
// thread) and their staging: fixed-size slots in shared buffers (the threads write them in place),
// allocated a chunk of slots at a time and reused once released, so memory follows the rows in
// flight, not the dataset.

const SLOTS_PER_CHUNK = 64;

export class RowSlots {
  readonly buffers: SharedArrayBuffer[] = [];
  private readonly free: number[] = [];

  constructor(readonly rowBytes: number) {}

  take(): number {
    if (this.free.length === 0) {
      const chunk = this.buffers.length;
      this.buffers.push(new SharedArrayBuffer(this.rowBytes * SLOTS_PER_CHUNK));
      for (let s = SLOTS_PER_CHUNK - 1; s >= 0; s--) this.free.push(chunk * SLOTS_PER_CHUNK + s);
    }
    return this.free.pop()!;
  }

  give(slot: number): void {
    this.free.push(slot);
  }

  /** [chunk, byte offset] of a slot. */
  where(slot: number): [number, number] {
    return [Math.floor(slot / SLOTS_PER_CHUNK), (slot % SLOTS_PER_CHUNK) * this.rowBytes];
  }

  bytes(slot: number): Uint8Array {
    const [chunk, at] = this.where(slot);
    return new Uint8Array(this.buffers[chunk]!, at, this.rowBytes);
  }

  /** Slots in use or free: the rows the buffers can hold. */
  get capacity(): number {
    return this.buffers.length * SLOTS_PER_CHUNK;
  }
}
