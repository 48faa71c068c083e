// A damaged checkpoint or saved model is refused before any worker starts, naming the file and
// what is wrong with it (file-integrity.ts, checkCheckpointFiles), and pointing at the newest
// earlier checkpoint of the run that is whole: --resume (or eval and predict) can go on from it.
import fs from 'node:fs';
import path from 'node:path';
import { DamagedFileError } from '../../shared/file-integrity.ts';
import { readLayersModel } from '../../shared/model-files.ts';
import { checkCheckpointFiles, listComplete, STATE_FILE } from './checkpoint.ts';

const stepOf = (dir: string) => Number(/^step-(\d+)$/.exec(path.basename(dir))?.[1] ?? NaN);

function intact(dir: string): boolean {
  try {
    checkCheckpointFiles(dir);
    return true;
  } catch {
    return false;
  }
}

/** The newest checkpoint of the same run before `dir` whose files all check out, or null. */
export function previousIntact(dir: string): string | null {
  const root = path.dirname(dir);
  if (path.basename(root) !== 'checkpoints' || !Number.isFinite(stepOf(dir))) return null;
  return listComplete(root).find((d) => stepOf(d) < stepOf(dir) && intact(d)) ?? null;
}

/**
 * Checks every file of checkpoint `dir`; a damaged one is refused with the way on: for
 * `resume`, --resume from the previous complete checkpoint; for `load`, --checkpoint it.
 */
export function verifyCheckpoint(dir: string, use: 'resume' | 'load'): void {
  try {
    checkCheckpointFiles(dir);
  } catch (err) {
    if (!(err instanceof DamagedFileError)) throw err;
    const prev = previousIntact(dir);
    const how = use === 'resume' ? 'continue from it with --resume' : 'use it with --checkpoint';
    const hint = prev
      ? `the previous complete checkpoint is ${prev}: ${how} ${prev}`
      : use === 'resume'
        ? 'no earlier checkpoint of this run is complete: start the run anew (--overwrite)'
        : 'no earlier checkpoint of this run is complete: use another model directory';
    throw new DamagedFileError(err.dir, err.file, err.problem, hint);
  }
}

/** eval and predict: the checkpoint, or model directory (model.json and its weights), they will read. */
export function verifyModelDir(dir: string): void {
  if (fs.existsSync(path.join(dir, STATE_FILE))) verifyCheckpoint(dir, 'load');
  else readLayersModel(path.join(dir, 'model.json'));
}
