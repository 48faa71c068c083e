// A value a data source gave, as a message about it shows it: a number as it is (20, NaN,
// Infinity), anything else as config messages show a value, quoted with its kind (`"20" (string)`,
// `[1, 2] (list)`), so that a string "20" and the number 20 never read alike.
import { show } from '../config/checker.ts';

export const valueText = (v: unknown): string => (typeof v === 'number' ? String(v) : show(v));
