// The number rules of a CSV value: a decimal number, optionally signed, with optional fraction and
// exponent ("1", "-2.5", ".5", "5.", "1e-3"), spaces and tabs around it ignored. Anything else
// (empty, "NaN", "inf", "0x10", "1e", "1_000") is not a number, since a missing value must be
// filled in before training; Number() alone would read "" as 0 and "0x10" as 16.
//
// The value is exactly Number(text): up to 15 significant digits with a decimal exponent within
// ±22 are computed directly (Clinger's fast path: one correctly rounded multiply or divide of two
// exact doubles, so no text is made), anything longer goes through Number.

const SPACE = 0x20;
const TAB = 0x09;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

// 10^0 .. 10^22: every one is exact in a double, which is what makes the fast path exact.
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

export const NOT_A_NUMBER = Symbol('not a number');

/** `text` without the spaces and tabs around it (not String.trim: that also drops other white space). */
export function trimSpaceTab(text: string): string {
  let s = 0;
  let e = text.length;
  while (s < e && (text.charCodeAt(s) === SPACE || text.charCodeAt(s) === TAB)) s++;
  while (e > s && (text.charCodeAt(e - 1) === SPACE || text.charCodeAt(e - 1) === TAB)) e--;
  return s === 0 && e === text.length ? text : text.slice(s, e);
}

/** The number `text` holds under the rules above, or NOT_A_NUMBER. */
export function parseNumber(text: string): number | typeof NOT_A_NUMBER {
  const t = trimSpaceTab(text);
  const e = t.length;
  if (e === 0) return NOT_A_NUMBER;
  let k = 0;
  let c = t.charCodeAt(0);
  const negative = c === MINUS;
  if (negative || c === PLUS) c = t.charCodeAt(++k);
  let mantissa = 0;
  let digits = 0;
  let significant = 0; // digits after leading zeros: what must fit the fast path
  let fraction = 0;
  while (c >= ZERO && c <= NINE) {
    mantissa = mantissa * 10 + (c - ZERO);
    if (mantissa !== 0) significant++;
    digits++;
    c = t.charCodeAt(++k);
  }
  if (c === DOT) {
    c = t.charCodeAt(++k);
    while (c >= ZERO && c <= NINE) {
      mantissa = mantissa * 10 + (c - ZERO);
      if (mantissa !== 0) significant++;
      digits++;
      fraction++;
      c = t.charCodeAt(++k);
    }
  }
  if (digits === 0) return NOT_A_NUMBER;
  let exponent = 0;
  if (c === LOWER_E || c === UPPER_E) {
    c = t.charCodeAt(++k);
    let expNegative = false;
    if (c === MINUS || c === PLUS) {
      expNegative = c === MINUS;
      c = t.charCodeAt(++k);
    }
    const expStart = k;
    while (c >= ZERO && c <= NINE) {
      if (exponent < 1e6) exponent = exponent * 10 + (c - ZERO);
      c = t.charCodeAt(++k);
    }
    if (k === expStart) return NOT_A_NUMBER;
    if (expNegative) exponent = -exponent;
  }
  if (k !== e) return NOT_A_NUMBER;
  const p = exponent - fraction;
  if (significant > 15 || p < -22 || p > 22) return Number(t); // the text carries its own sign
  const value = p === 0 ? mantissa : p > 0 ? mantissa * POW10[p]! : mantissa / POW10[-p]!;
  return negative ? -value : value;
}
