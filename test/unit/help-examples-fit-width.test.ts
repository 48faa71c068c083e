// --help's examples fit the width the help wraps at: side by side with what they do on a wide
// terminal, the description below on a narrow one, a command longer than the line continued with
// ` \` (a shell reads it as the one command), never cut inside a word.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { helpExamples, HELP_EXAMPLES } from '../../src/cli/help-examples.ts';

const EXAMPLES: [string, string][] = [
  ['mgpu-train train exp.yaml', 'train it'],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input image=a.npy --input meta=b.npy --output preds', 'one file per output'],
  ['mgpu-train train exp.yaml --gpus 0,1', ''],
];

test('at 200 columns: each command and its description on one line, the short ones aligned', () => {
  const lines = helpExamples(200, EXAMPLES).split('\n');
  assert.deepEqual(lines, [
    'Examples:',
    '  mgpu-train train exp.yaml   train it',
    '  mgpu-train predict exp.yaml --checkpoint runs/exp/final --input image=a.npy --input meta=b.npy --output preds   one file per output',
    '  mgpu-train train exp.yaml --gpus 0,1',
  ]);
});

test('at 60 columns: the long command continued with " \\", the descriptions below, nothing wider than 60', () => {
  const lines = helpExamples(60, EXAMPLES).split('\n');
  assert.deepEqual(lines, [
    'Examples:',
    '  mgpu-train train exp.yaml   train it',
    '  mgpu-train predict exp.yaml --checkpoint runs/exp/final \\',
    '      --input image=a.npy --input meta=b.npy --output preds',
    '      one file per output',
    '  mgpu-train train exp.yaml --gpus 0,1',
  ]);
});

for (const width of [50, 80, 100, 150, 200]) {
  test(`mgpu-train's own examples at ${width} columns: every line fits, every command whole`, () => {
    const text = helpExamples(width);
    for (const line of text.split('\n')) assert.ok(line.length <= width, `${line.length} columns: ${line}`);
    const joined = text.replace(/ \\\n {6}/g, ' ');
    for (const [command, what] of HELP_EXAMPLES) {
      assert.ok(
        joined.split('\n').some((l) => l.trimStart().startsWith(command)),
        `${command} not whole`,
      );
      if (what) assert.ok(joined.includes(what) || text.replace(/\n {6}/g, ' ').includes(what), `${what} missing`);
    }
  });
}
