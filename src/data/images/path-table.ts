// The files of an image split, held as one string and the start of each path in it: a million
// paths cost their characters (tens of MB), not a million JavaScript strings.

export class PathTable {
  private constructor(
    readonly root: string, // each path is relative to it ('' when the paths are absolute)
    private readonly text: string,
    private readonly starts: Uint32Array, // [count + 1]
  ) {}

  static of(root: string, paths: readonly string[]): PathTable {
    const starts = new Uint32Array(paths.length + 1);
    let at = 0;
    paths.forEach((p, i) => {
      starts[i] = at;
      at += p.length;
    });
    starts[paths.length] = at;
    return new PathTable(root, paths.join(''), starts);
  }

  get count(): number {
    return this.starts.length - 1;
  }

  /** Path i as it is stored (relative to root). */
  relative(i: number): string {
    return this.text.slice(this.starts[i], this.starts[i + 1]);
  }

  /** Path i, whole. */
  file(i: number): string {
    const rel = this.relative(i);
    return this.root && !rel.startsWith('/') ? `${this.root}/${rel}` : rel;
  }

  /** The rows [a, b) as a plain object a worker thread can take. */
  slice(indices: ArrayLike<number>): string[] {
    return Array.from(indices, (i) => this.file(i));
  }
}
