// The learning-rate chart calls the rate "constant" only when the schedule is: a cosine run with
// a single log line also shows one value, which is the schedule's value at that step.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { report } from '../../src/report/index.ts';
import { trainLine } from '../helpers/train-line.ts';
import { tempDir } from '../helpers/temp-dir.ts';

function runWith(schedule: string): string {
  const dir = tempDir('report-lr');
  fs.writeFileSync(path.join(dir, 'config.yaml'), `name: lr\nschedule:\n  name: ${schedule}\n`);
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), JSON.stringify(trainLine(10, { loss: 1, lr: 0.0025 })) + '\n');
  return dir;
}

test('one log line: "constant" for a constant schedule, the schedule named otherwise', async () => {
  const quiet = { line() {} };
  const cosine = fs.readFileSync((await report(runWith('cosine'), quiet)).htmlPath, 'utf8');
  assert.doesNotMatch(cosine, /constant at/);
  assert.match(cosine, /0\.0025 \(cosine schedule, logged once\)/);
  const constant = fs.readFileSync((await report(runWith('constant'), quiet)).htmlPath, 'utf8');
  assert.match(constant, /constant at 0\.0025/);
});
