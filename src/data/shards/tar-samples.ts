// WebDataset's grouping of a tar shard's members into samples: consecutive members sharing a key
// (the folder and the basename before its first dot) are one sample, each a part named by the
// rest (its extension, lower-cased: "jpg", "cls", "seg.png"). Known parts are images (jpg jpeg
// png webp), cls (the class index), json and npy; a member of any other extension is counted, not
// fatal. A part twice in one sample is a DataError naming the shard, the sample and the member.
import { DataError } from '../../shared/errors.ts';
import type { TarMember } from './tar-members.ts';

export const KNOWN_PARTS = new Set(['jpg', 'jpeg', 'png', 'webp', 'cls', 'json', 'npy']);

export interface TarSample {
  key: string;
  parts: Map<string, TarMember>; // by extension
}

/** A member's sample key and extension: "a/b/x001.seg.png" is key "a/b/x001", part "seg.png". */
export function splitName(name: string): { key: string; part: string } {
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot < 0) return { key: name, part: '' };
  return { key: name.slice(0, dot), part: name.slice(dot + 1).toLowerCase() };
}

/** Groups members, in order, into samples: `add` each member, `end` once; `done` gets each sample, `unknown` each member of another extension. */
export class SampleGrouper {
  private current: TarSample | null = null;

  constructor(
    private readonly shard: string,
    private readonly done: (s: TarSample) => void,
    private readonly unknown: (m: TarMember) => void,
  ) {}

  add(m: TarMember): void {
    const { key, part } = splitName(m.name);
    if (this.current && this.current.key !== key) this.end();
    this.current ??= { key, parts: new Map() };
    if (!KNOWN_PARTS.has(part)) {
      this.unknown(m);
      return;
    }
    const before = this.current.parts.get(part);
    if (before)
      throw new DataError(
        `shard ${this.shard} sample ${key}: its part .${part} is there twice (members ${before.name} at byte ${before.header} and ${m.name} at byte ${m.header})`,
        'a sample holds one member of each extension: write the shard again with one',
      );
    this.current.parts.set(part, m);
  }

  end(): void {
    if (this.current && this.current.parts.size > 0) this.done(this.current);
    this.current = null;
  }
}
