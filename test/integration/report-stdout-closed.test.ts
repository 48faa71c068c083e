// `mgpu-train report <run> | head -1`: stdout closed before the table is written must not print
// a stack trace; the report still writes report.html and exits 0, quietly (as Unix tools do).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { startCli } from '../helpers/chaos.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { trainLine } from '../helpers/train-line.ts';

test('report with its stdout closed: exit 0, report.html written, nothing on stderr', async () => {
  const runDir = path.join(tempDir('report-stdout-closed'), 'run');
  fs.mkdirSync(runDir, { recursive: true });
  const line = (step: number) => JSON.stringify(trainLine(step));
  fs.writeFileSync(path.join(runDir, 'metrics.jsonl'), [1, 2, 3].map(line).join('\n') + '\n');
  const cli = startCli(['report', runDir]);
  cli.child.stdout!.destroy(); // before the first line: every write of the table meets a closed pipe
  const r = await cli.done;
  assert.equal(r.stderr, '', 'something on stderr');
  assert.equal(r.code, 0);
  assert.ok(fs.existsSync(path.join(runDir, 'report.html')), 'no report.html');
});
