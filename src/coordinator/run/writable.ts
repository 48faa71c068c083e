// Where a command will write is checked before any worker starts: a run directory under a
// regular file, on a read-only filesystem or in /sys, or a --output in a missing directory,
// would otherwise fail after start-up (or after all the work), with workers to tear down.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Why `dir` cannot be created and written to, or null when it can. Nothing is left behind:
 * a missing directory is not created, its nearest existing ancestor is probed instead.
 */
export function unwritableDirReason(dir: string): string | null {
  let existing = path.resolve(dir);
  while (!fs.existsSync(existing)) {
    const up = path.dirname(existing);
    if (up === existing) return `no part of ${dir} exists`;
    existing = up;
  }
  if (!fs.statSync(existing).isDirectory()) {
    return existing === path.resolve(dir)
      ? `${existing} is a file, not a directory`
      : `${existing} is a file, not a directory, so nothing can be created under it`;
  }
  // access(W_OK) is no answer for root or on a read-only mount: try what the run will do.
  const probe = path.join(existing, `.mgpu-write-probe-${process.pid}`);
  try {
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    return null;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'not permitted',
      EROFS: 'read-only filesystem',
      ENOSPC: 'no space left',
      ENOENT: 'cannot create entries there',
    };
    return `cannot create anything in ${existing} (${why[e.code ?? ''] ?? e.message})`;
  }
}
