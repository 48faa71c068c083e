// Growable typed-array output for a table read row by row whose length is not known up front (a
// CSV file's rows): whole rows go into blocks, joined once at the end.

const BLOCK_VALUES = 1 << 20; // output is gathered in blocks of about this many values

/**
 * Growable output in blocks that double up to about BLOCK_VALUES values, joined once at the end
 * (peak memory about twice the result). Every block holds whole rows.
 */
export class Blocks<T extends Float32Array | Int32Array> {
  private readonly done: T[] = [];
  private current: T;
  private used = 0;
  private total = 0;
  private rows = 256;
  constructor(
    private readonly make: (n: number) => T,
    private readonly rowValues: number,
  ) {
    this.current = make(this.rows * rowValues);
  }
  /** Offset in `block` where the next row goes (the row is then written by the caller). */
  reserveRow(): number {
    if (this.used + this.rowValues > this.current.length) {
      this.done.push(this.current);
      this.rows = Math.max(this.rows, Math.min(this.rows * 2, Math.floor(BLOCK_VALUES / this.rowValues)));
      this.current = this.make(this.rows * this.rowValues);
      this.used = 0;
    }
    const at = this.used;
    this.used += this.rowValues;
    this.total += this.rowValues;
    return at;
  }
  get block(): T {
    return this.current;
  }
  finish(): T {
    if (this.done.length === 0 && this.used === this.current.length) return this.current;
    const out = this.make(this.total);
    let at = 0;
    for (const b of this.done) {
      out.set(b, at);
      at += b.length;
    }
    out.set(this.current.subarray(0, this.used), at);
    return out;
  }
}
