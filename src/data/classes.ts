// Class-name labels (a CSV label column with labelType: class): the mapping from class names to
// the class indices the model is trained on, and labels.json, the file that keeps it beside
// every model a run writes (final/, best/, each checkpoint).
//
// The mapping is the sorted list of the names in data.train (as scikit-learn's LabelEncoder:
// by Unicode code point), or data.classes when the config lists them (their order wins). Eval
// data is encoded with the training mapping, never its own. A checkpoint's labels.json is the
// mapping of a resumed run; a model's, the mapping `eval` encodes with and `predict` names by.
//
// labels.json: { "classes": ["cat", "dog", ...] }, output i of the model is class classes[i].
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../shared/errors.ts';

export const LABELS_FILE = 'labels.json';

/** A fixed list of class names, and where it came from (for messages: "data.classes", a labels.json path). */
export interface ClassMapping {
  classes: readonly string[];
  from: string;
  hint?: string; // for a name outside the list
  /** Names found in a CSV (not listed): its path and the line each class is first on. */
  found?: { file: string; lines: readonly number[] };
}

/** Orders strings by Unicode code point (numpy's order for str arrays), not by UTF-16 unit. */
export function byCodePoint(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** The bytes of labels.json: the same for the same classes, whoever writes them. */
export function labelsJson(classes: readonly string[]): string {
  return `${JSON.stringify({ classes })}\n`;
}

/** The files to write beside a model's model.json: labels.json when there are class names. */
export function labelFiles(classes: readonly string[] | null): Record<string, string> {
  return classes ? { [LABELS_FILE]: labelsJson(classes) } : {};
}

/** The class names in `dir`/labels.json, or null when there is none. */
export function readLabels(dir: string): ClassMapping | null {
  const file = path.join(dir, LABELS_FILE);
  if (!fs.existsSync(file)) return null;
  const bad = (why: string): never => {
    throw new MgpuError('E_MODEL', `${file}: ${why}`, {
      hint: 'labels.json is { "classes": ["name of output 0", "name of output 1", ...] }, written by mgpu-train beside the model',
    });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return bad(`cannot be read as JSON (${(err as Error).message})`);
  }
  const classes = (parsed as { classes?: unknown } | null)?.classes;
  if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === 'string' && c !== '')) {
    return bad('expected { "classes": [...] } with a non-empty list of class names');
  }
  if (new Set(classes).size !== classes.length) return bad('lists a class name twice');
  return { classes: classes as string[], from: file, hint: 'the model was trained on these classes (one output each): it has no output for another one' };
}

/**
 * The model must have one output per class (sparseCategoricalCrossentropy), or the output that
 * a name stands for would not exist, or an output would have no name. `net`: the model is a
 * network by name, whose head is sized by the key model.classes (the hint names it).
 */
export function checkClassesFitModel(mapping: ClassMapping | null, outputs: number, what: string, net = false): void {
  if (!mapping || mapping.classes.length === outputs) return;
  const n = mapping.classes.length;
  const resize = net
    ? `set model.classes to ${n} (or leave it out: it defaults to the data's class count)`
    : `give the model's last layer ${n} units (softmax)`;
  const units = `${outputs} output${outputs === 1 ? '' : 's'}`;
  if (mapping.found) {
    // The classes are those of the file they were found in (data.train), whichever split is checked.
    // A typo in one row's name ("Setosa") is a class of its own: the first line of each shows it.
    const { file, lines } = mapping.found;
    const each = mapping.classes.map((c, i) => `${JSON.stringify(c)} (first on line ${lines[i]})`);
    const shown = each.length > 12 ? `${each.slice(0, 12).join(', ')}, ... (${n} in all)` : each.join(', ');
    throw new MgpuError('E_DATA', `${mapping.from}: ${file} has ${n} classes but the model has ${units} (one per class): ${shown}`, {
      hint: `a misspelt class name is a class of its own: fix those rows, list the classes in data.classes, or ${resize}`,
    });
  }
  throw new MgpuError(
    'E_DATA',
    `${what}: ${n} class${n === 1 ? '' : 'es'} (${mapping.from}: ${showClasses(mapping.classes)}) but the model has ${units} (expected one per class)`,
    {
      // One class is no classification: a softmax of one unit always says 1.
      hint:
        n === 1
          ? `a classifier needs at least 2 classes: add the others' data (an image folder per class), or list the model's ${outputs} classes in data.classes`
          : `${resize}, or list the model's ${outputs} classes in data.classes`,
    },
  );
}

export function sameClasses(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/** A list of names for messages, shortened: "cat, dog, fish" or "a, b, ... (40 in all)". */
export function showClasses(classes: readonly string[], max = 12): string {
  const q = (c: string) => JSON.stringify(c);
  return classes.length > max ? `${classes.slice(0, max).map(q).join(', ')}, ... (${classes.length} in all)` : classes.map(q).join(', ');
}

/**
 * The run header's line: `3 classes from data.train (sorted): 0 "bird", 1 "cat", 2 "dog"` (a
 * tfrecord split's numbered classes, "0".."K-1", are in index order: "(sorted)" only when they are).
 */
export function describeMapping(classes: readonly string[], from: string): string {
  const sorted = classes.every((c, i) => i === 0 || byCodePoint(classes[i - 1]!, c) < 0);
  const shown = classes
    .slice(0, 8)
    .map((c, i) => `${i} ${JSON.stringify(c)}`)
    .join(', ');
  return `${classes.length} classes from ${from}${from === 'data.train' && sorted ? ' (sorted)' : ''}: ${shown}${classes.length > 8 ? `, ... (all in ${LABELS_FILE})` : ''}`;
}
