// The bytes of a data file (.npy) for the whole run, read from the one descriptor opened at
// start-up, so a file moved, deleted or replaced by another during the run is still the file
// the run started with. Mapped (MAP_PRIVATE, through the page cache) when the mmap addon is
// there: each copy out of the mapping runs in C under a SIGBUS guard and is followed by an
// fstat of the descriptor, so a file cut short (np.save truncates before it writes) is a
// DataError naming it, not a process killed by SIGBUS; without the addon, pread.
//
// What is left: a file cut short and grown back between two copies (a rewrite in place) is read
// as it is then: its new bytes, or the zeros the kernel gives past a short file's end in its
// last page for as long as it was short. A file that stays shorter is always found by the copy
// after which it shrank, before that copy's rows are used.
import fs from 'node:fs';
import { DataError } from '../shared/errors.ts';
import { loadMmap, type MmapAddon } from '../shared/mapped-memory.ts';
import { readFully } from '../shared/read-fully.ts';

/** Runs of bytes to copy: (length, position in the file, offset in the output), three numbers a run. */
export class ByteRuns {
  values = new Float64Array(3 * 16);
  count = 0;

  add(length: number, from: number, to: number): void {
    if (this.values.length < 3 * (this.count + 1)) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const at = 3 * this.count++;
    this.values[at] = length;
    this.values[at + 1] = from;
    this.values[at + 2] = to;
  }
}

/** A data file open for the run. */
export interface DataFileRows {
  readonly mapped: boolean;
  /** Copies `runs` (positions in the file) into `out`; a DataError when the file ended first. */
  copy(out: Uint8Array, runs: ByteRuns): void;
}

const HINT = 'do not change a data file during a run: write a new file and rename it over the old one (a run keeps reading the one it started with)';

function shrank(file: string, at: number): DataError {
  return new DataError(`${file}: the file ended at byte ${at} (it shrank while the run was reading it)`, HINT);
}

/** Descriptors are closed when their reader is collected (a column lives as long as its run). */
const descriptors = new FinalizationRegistry<number>((fd) => fs.close(fd, () => undefined));

/** `file`, `fileBytes` long at start-up, open for the run: mapped when the addon can, else read with pread. */
export function openDataFile(file: string, fileBytes: number): DataFileRows {
  const fd = fs.openSync(file, 'r');
  try {
    const mm = loadMmap();
    const buffer = mm && fileBytes > 0 ? mapFile(mm, fd, fileBytes) : null;
    const rows = buffer ? mappedRows(mm!, buffer, fd, file, fileBytes) : preadRows(fd, file);
    descriptors.register(rows, fd);
    return rows;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The whole file mapped private; null where this filesystem cannot map (some FUSE mounts): pread then. */
function mapFile(mm: MmapAddon, fd: number, fileBytes: number): ArrayBuffer | null {
  const page = mm.pageSize();
  try {
    return mm.mapPrivate(fd, 0, Math.ceil(fileBytes / page) * page);
  } catch {
    return null;
  }
}

function mappedRows(mm: MmapAddon, buffer: ArrayBuffer, fd: number, file: string, fileBytes: number): DataFileRows {
  return {
    mapped: true,
    copy(out, runs) {
      const ended = mm.copyFrom(out, buffer, runs.values, runs.count, fd, fileBytes);
      if (ended >= 0) throw shrank(file, ended);
    },
  };
}

function preadRows(fd: number, file: string): DataFileRows {
  // A read that meets the end says where the file ends now, as the mapped copy does.
  const ended = { file, why: '', error: () => shrank(file, fs.fstatSync(fd).size) };
  return {
    mapped: false,
    copy(out, runs) {
      const v = runs.values;
      for (let i = 0; i < runs.count; i++) readFully(fd, out.subarray(v[3 * i + 2], v[3 * i + 2]! + v[3 * i]!), v[3 * i + 1]!, ended);
    },
  };
}
