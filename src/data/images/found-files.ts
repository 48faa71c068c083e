// What an image index found: the images by extension, and what it skipped (other files by
// extension, hidden files), for the run header.

export class FoundFiles {
  readonly images = new Map<string, number>();
  readonly skipped = new Map<string, number>();
  hidden = 0;
  readonly warnings: string[] = [];

  add(map: Map<string, number>, ext: string): void {
    map.set(ext, (map.get(ext) ?? 0) + 1);
  }

  /** e.g. "1,200 images (jpg 1,000, png 200)". */
  describeImages(): string {
    const n = total(this.images);
    return `${n.toLocaleString('en-US')} image${n === 1 ? '' : 's'} (${each(this.images)})`;
  }

  /** e.g. "skipped 3 other files (txt 2, no extension 1) and 1 hidden", or '' when nothing was. */
  describeSkipped(): string {
    const other = total(this.skipped);
    if (other === 0 && this.hidden === 0) return '';
    const parts = [other > 0 ? `${other} other file${other === 1 ? '' : 's'} (${each(this.skipped)})` : '', this.hidden > 0 ? `${this.hidden} hidden` : ''];
    return `skipped ${parts.filter(Boolean).join(' and ')}`;
  }
}

const each = (m: Map<string, number>) =>
  [...m]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([e, n]) => `${e || 'no extension'} ${n.toLocaleString('en-US')}`)
    .join(', ');
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
