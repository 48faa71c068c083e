// The examples of `mgpu-train --help`, laid out for the width the help wraps at: a command and
// what it does side by side where they fit, else the description on the line below, indented.
// A command is never broken in the middle of a word, and a command longer than the line goes on
// over several lines ending in ` \`, as a shell reads it (it can still be copied and run).

/** Each example: the command line, and what it does ('' when the command says it). */
export const HELP_EXAMPLES: readonly (readonly [string, string])[] = [
  ['mgpu-train train examples/mnist-mlp/experiment.yaml', 'train on every visible GPU'],
  ['mgpu-train train examples/digits-folder/experiment.yaml --simulate 2', 'train on a folder of class folders of images'],
  ['mgpu-train train exp.yaml --gpus 0,1 --set optimizer.learningRate=3e-4', ''],
  ['mgpu-train train exp.yaml --simulate 4', '4 simulated GPUs on the CPU'],
  ['mgpu-train train exp.yaml --resume', 'continue from the newest checkpoint'],
  ['mgpu-train eval exp.yaml --checkpoint runs/exp', 'evaluate the newest checkpoint'],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input x.npy --output y.npy', ''],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input x.npy --output y.csv', 'class names'],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input image=a.npy --input meta=b.npy --output preds', 'one preds/<output>.npy per output'],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input photos/ --output labels.csv', "each image's path, class and score"],
  ['mgpu-train predict exp.yaml --checkpoint runs/exp/final --input val-00000-of-00001.tfrecord --output labels.csv', "each record's class and score"],
  ['mgpu-train report runs/exp', 'table + runs/exp/report.html'],
  ['mgpu-train benchmark --config exp.yaml --workers 1,2 --simulate', 'images/s on 1 and 2 workers, plain tfjs beside'],
  ['mgpu-train devices', 'what GPUs mgpu-train sees'],
  ['mgpu-train nets', 'the networks model.net names'],
  ['mgpu-train shards photos/train shards/ --format tfrecord', 'an image folder as TFRecord shards'],
  ['mgpu-train launch -H node-a,node-b -np 2 -- train exp.yaml', 'train on 2 machines (runs mpirun)'],
];

const INDENT = '  ';
const UNDER = '      '; // a description below its command, a command's continuation lines
const GAP = 3;
/** Commands up to this long share the description column. */
const ALIGNED = 68;

/** `words` as lines of at most `width` columns (a word longer than that alone on its line), each after `first` / `rest`, joined with `join`. */
function fill(words: string[], width: number, first: string, rest: string, end = ''): string[] {
  const lines: string[] = [];
  let line = first;
  for (const [i, w] of words.entries()) {
    const lead = line === first || line === rest;
    // The last word needs no room for `end` after it: no line follows.
    if (!lead && line.length + 1 + w.length + (i === words.length - 1 ? 0 : end.length) > width) {
      lines.push(line + end);
      line = rest + w;
    } else line += (lead ? '' : ' ') + w;
  }
  return [...lines, line];
}

/** The Examples section for a help `width` columns wide. */
export function helpExamples(width: number, examples = HELP_EXAMPLES): string {
  // Side by side, in one column after the commands of up to ALIGNED characters, when every
  // description fits there; a longer command has its description 3 spaces after it, or below.
  const described = examples.filter(([c, d]) => d !== '' && c.length <= ALIGNED);
  const column = INDENT.length + Math.max(0, ...described.map(([c]) => c.length)) + GAP;
  const aligned = described.every(([, d]) => column + d.length <= width);
  const lines = ['Examples:'];
  for (const [command, what] of examples) {
    if (what === '' && INDENT.length + command.length <= width) lines.push(INDENT + command);
    else if (aligned && what !== '' && command.length <= ALIGNED) lines.push((INDENT + command).padEnd(column) + what);
    else if (aligned && what !== '' && INDENT.length + command.length + GAP + what.length <= width) lines.push(INDENT + command + ' '.repeat(GAP) + what);
    else {
      lines.push(...fill(command.split(' '), width, INDENT, UNDER, ' \\'));
      if (what !== '') lines.push(...fill(what.split(' '), width, UNDER, UNDER));
    }
  }
  return lines.join('\n');
}
