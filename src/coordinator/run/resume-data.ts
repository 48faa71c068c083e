// A resume continues on the data its checkpoint was trained on, or says it does not. The
// checkpoint's data record (data/data-record.ts) is compared with the data loaded now: a training
// split of another sample count is refused (E_RESUME, exit 2): its batches, epochs and place in
// the epoch follow from the count, so the run cannot go on where it was. A file that changed
// (its size, or the CRC-32C of its first and last 64 KiB), a pattern that matches other files, an
// image index of other paths, or an eval split of another count, is refused too unless
// --allow-changed names its key (data.train.features, data.eval, data, ...), as a changed config
// key is; accepted, it is reported. A file whose mtime alone changed is the same data (a copy):
// a note says so. A checkpoint older than the record resumes with a note.
import { MgpuError } from '../../shared/errors.ts';
import { dataRecord } from '../../data/data-record.ts';
import type { FileRecord, SplitRecord } from '../../data/split-record.ts';
import type { Dataset } from '../../data/rows.ts';
import { FINGERPRINT_END_BYTES } from '../../data/file-fingerprint.ts';
import type { TrainerState } from './trainer-state.ts';

interface DataChange {
  key: string;
  what: string;
}

const under = (key: string, prefix: string) => key === prefix || key.startsWith(`${prefix}.`);
const n = (v: number) => v.toLocaleString('en-US');
const when = (ms: number) => new Date(ms).toISOString();

/**
 * Throws E_RESUME for what the checkpoint's data record refuses; returns the lines to print (the
 * changes --allow-changed accepted, and notes).
 */
export function checkResumedData(checkpoint: string, state: TrainerState, train: Dataset, evalSet: Dataset | null, allowed: readonly string[]): string[] {
  const now = dataRecord(train, evalSet);
  if (!state.data) {
    return [`note: ${checkpoint} was written before checkpoints recorded their data (each split's sample count and files): the data is not compared with it`];
  }
  const notes: string[] = [];
  const changes: DataChange[] = [];
  for (const then of state.data.splits) {
    const split = now.splits.find((s) => s.key === then.key);
    if (!split) continue; // a split the config no longer has: a config change, checked with the config
    if (split.count !== then.count && then.key === 'data.train') refuseCount(checkpoint, then, split);
    if (split.count !== then.count) changes.push({ key: split.key, what: `${split.key} holds ${n(split.count)} samples, the checkpoint's ${n(then.count)}` });
    changes.push(...fileChanges(then, split, notes), ...indexChanges(then, split));
  }
  const refused = changes.filter((c) => !allowed.some((p) => under(c.key, p)));
  if (refused.length > 0) {
    const keys = [...new Set(refused.map((c) => c.key))];
    throw new MgpuError('E_RESUME', `cannot resume from ${checkpoint}: the data changed since it was written: ${refused.map((c) => c.what).join('; ')}`, {
      hint:
        'the checkpoint continues exactly only on the data it was trained on: restore it, ' +
        `or resume on the data as it is now with ${keys.map((k) => `--allow-changed ${k}`).join(' ')}, or start a new run`,
    });
  }
  const accepted = changes.length ? [`data changed on resume (--allow-changed): ${changes.map((c) => c.what).join('; ')}`] : [];
  return [...accepted, ...notes];
}

function refuseCount(checkpoint: string, then: SplitRecord, now: SplitRecord): never {
  throw new MgpuError(
    'E_RESUME',
    `cannot resume from ${checkpoint}: data.train holds ${n(now.count)} samples now, the checkpoint was trained on ${n(then.count)}`,
    {
      hint:
        "the run's batches, its epochs and its place in the epoch follow from the sample count, so it cannot go on where it was, not even with --allow-changed: " +
        'restore the data it was trained on to resume it, or start a new run (another name, or --overwrite)',
    },
  );
}

/** The files of each key, compared in order: a pattern that matches other files, a file of other bytes. */
function fileChanges(then: SplitRecord, now: SplitRecord, notes: string[]): DataChange[] {
  const out: DataChange[] = [];
  for (const key of new Set([...then.files, ...now.files].map((f) => f.key))) {
    const a = then.files.filter((f) => f.key === key);
    const b = now.files.filter((f) => f.key === key);
    if (a.length !== b.length) {
      const list = (fs: FileRecord[]) =>
        fs.length === 0 ? 'none' : fs.length === 1 ? fs[0]!.file : `${fs.length} files, ${fs[0]!.file} to ${fs.at(-1)!.file}`;
      out.push({ key, what: `${key} is ${list(b)} now, the checkpoint's ${list(a)}` });
      continue;
    }
    a.forEach((old, i) => {
      const cur = b[i]!;
      const what = fileChange(old, cur);
      if (what) out.push({ key, what: `${key} ${cur.file}${cur.file === old.file ? '' : ` (the checkpoint's ${old.file})`}: ${what}` });
      else if (cur.mtimeMs !== old.mtimeMs && cur.bytes > 2 * FINGERPRINT_END_BYTES)
        notes.push(
          `note: ${key} ${cur.file} was modified since the checkpoint (${when(old.mtimeMs)}, now ${when(cur.mtimeMs)}), but its size and its first and last 64 KiB are the same: taken as the same data (a change inside its middle is not seen)`,
        );
    });
  }
  return out;
}

function fileChange(then: FileRecord, now: FileRecord): string | null {
  if (then.bytes !== now.bytes) return `${n(now.bytes)} bytes now, the checkpoint's ${n(then.bytes)}`;
  if (then.crc32c === now.crc32c) return null;
  const part = now.bytes > 2 * FINGERPRINT_END_BYTES ? 'its first and last 64 KiB differ' : 'its bytes differ';
  return `${part} (CRC-32C ${now.crc32c} now, the checkpoint's ${then.crc32c}; ${n(now.bytes)} bytes both)`;
}

function indexChanges(then: SplitRecord, now: SplitRecord): DataChange[] {
  const a = then.index;
  const b = now.index;
  if (!a || !b || a.sha256 === b.sha256) return [];
  const what =
    a.count === b.count
      ? `${b.count === 1 ? 'the image is not the one' : `the ${n(b.count)} images are not the ones`} the checkpoint was trained on (a file renamed, moved to another class, or replaced by another)`
      : `${n(b.count)} ${b.count === 1 ? 'image' : 'images'} now, the checkpoint's ${n(a.count)}`;
  return [{ key: b.key, what: `${b.key}: ${what}` }];
}
