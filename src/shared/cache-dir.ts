// mgpu-train's cache folder, for what it derives from a user's files or its dependencies and can
// always derive again (record indexes of read-only shards, the mnist digits decoded): $MGPU_CACHE_DIR,
// else $XDG_CACHE_HOME/mgpu-train, else ~/.cache/mgpu-train.
import os from 'node:os';
import path from 'node:path';

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MGPU_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mgpu-train');
}
