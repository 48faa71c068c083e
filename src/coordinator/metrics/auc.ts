// ROC AUC over the gathered scores of the whole eval set. The AUC is the probability that a
// random positive scores above a random negative, ties counting one half (the Mann-Whitney U
// statistic over P·N): the trapezoidal area under the ROC curve with tied scores taken as one
// step, as scikit-learn's roc_auc_score. Computed from mid-ranks after one sort, so it depends
// only on the order of the scores: the float32 scores the workers wrote give it exactly.

/** null when there is no positive or no negative (the AUC is undefined); NaN when a score is NaN. */
export function rocAuc(scores: ArrayLike<number>, positive: ArrayLike<boolean>): number | null {
  const n = scores.length;
  let pos = 0;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(scores[i])) return NaN;
    if (positive[i]) pos++;
  }
  const neg = n - pos;
  if (pos === 0 || neg === 0) return null;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let rankSum = 0; // of the positives, 1-based, ties at their group's mean rank
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const mid = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) if (positive[order[t]!]) rankSum += mid;
    i = j + 1;
  }
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * The mean of per-column AUCs over the columns where it is defined (null when none is).
 * `scores`: m rows of `width` scores. `labels`: m class indices (`classes`: one-vs-rest, column
 * c's positives are the rows of class c) or m rows of `width` 0/1 labels (`outputs`: each output
 * of a binaryCrossentropy model against its own labels).
 */
export function macroAuc(scores: Float32Array, labels: Float32Array, width: number, kind: 'classes' | 'outputs'): number | null {
  const m = scores.length / width;
  const column = new Float32Array(m);
  const positive = new Array<boolean>(m);
  let total = 0;
  let defined = 0;
  for (let c = 0; c < width; c++) {
    for (let i = 0; i < m; i++) {
      column[i] = scores[i * width + c]!;
      positive[i] = kind === 'classes' ? labels[i] === c : labels[i * width + c]! > 0.5;
    }
    const auc = rocAuc(column, positive);
    if (auc === null) continue;
    total += auc;
    defined++;
  }
  return defined === 0 ? null : total / defined;
}
