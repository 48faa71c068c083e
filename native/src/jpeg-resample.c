// The triangle-filter resampler of jpeg-resample.h. Each output pixel i of an axis is centred at
// source coordinate src_start + (i + 0.5) * scale + (src_len - full_len * scale) / 2 (i * scale
// when enlarging, as libvips does) and takes the
// source pixels within `support` of it (1 pixel when enlarging, `scale` pixels when shrinking, so
// a shrink averages every source pixel instead of skipping some), weighted by the triangle, the
// weights normalised to 1 and rounded to 22-bit integers, as PIL's resample does. Integer sums
// make the pixels the same on every machine whatever the compiler does with floating point.
#include "jpeg-resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRECISION_BITS 22

typedef struct {
  int *first;     // per output pixel: its first source pixel (absolute)
  int *count;     // per output pixel: how many source pixels it takes
  int32_t *w;     // per output pixel: `taps` weights, `count` of them used
  int taps;
} coeffs;

static double triangle(double x) {
  x = fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

static void free_coeffs(coeffs *c) {
  free(c->first);
  free(c->count);
  free(c->w);
}

/** The weights of the output pixels [a.dst_off, a.dst_off + a.dst_count); 0, or -1 out of memory. */
static int make_coeffs(mgpu_axis a, coeffs *c) {
  double scale = a.scale;
  double offset = a.src_start + (a.src_len - a.full_len * scale) / 2; // libvips's centring
  double filterscale = scale > 1.0 ? scale : 1.0;
  double support = filterscale; // the triangle's support is 1, widened by the shrink
  c->taps = (int)ceil(support) * 2 + 1;
  c->first = malloc(sizeof(int) * a.dst_count);
  c->count = malloc(sizeof(int) * a.dst_count);
  c->w = malloc(sizeof(int32_t) * a.dst_count * c->taps);
  if (!c->first || !c->count || !c->w) return free_coeffs(c), -1;
  double *kw = malloc(sizeof(double) * c->taps);
  if (!kw) return free_coeffs(c), -1;
  int end = a.src_start + a.src_len;
  for (int i = 0; i < a.dst_count; i++) {
    // Enlarging, libvips interpolates at i * scale - 0.5 in pixel indices (measured against
    // sharp: at (i + 0.5) * scale - 0.5, PIL's, the rows differ by 2.6-5 levels): half a step less.
    double center = offset + (a.dst_off + i + (scale < 1.0 ? 0.0 : 0.5)) * scale;
    int lo = (int)floor(center - support + 0.5);
    int hi = (int)floor(center + support + 0.5);
    if (lo < a.src_start) lo = a.src_start;
    if (hi > end) hi = end;
    if (hi - lo > c->taps) hi = lo + c->taps;
    // Taps of weight 0 at the ends (a pixel exactly one support away) are dropped: an axis that
    // is not resized then takes one pixel per pixel.
    while (hi - lo > 1 && triangle((lo - center + 0.5) / filterscale) == 0.0) lo++;
    while (hi - lo > 1 && triangle((hi - 1 - center + 0.5) / filterscale) == 0.0) hi--;
    // A centre beyond the edge (the plans jpeg-geometry.ts makes never put one there): the edge pixel.
    if (hi <= lo) {
      lo = center < a.src_start ? a.src_start : end - 1;
      hi = lo + 1;
    }
    double sum = 0.0;
    for (int x = lo; x < hi; x++) sum += kw[x - lo] = triangle((x - center + 0.5) / filterscale);
    int32_t *w = c->w + (size_t)i * c->taps;
    int32_t total = 0, top = 0;
    for (int x = lo; x < hi; x++) {
      double v = sum > 0.0 ? kw[x - lo] / sum : 0.0;
      total += w[x - lo] = (int32_t)floor(v * (1 << PRECISION_BITS) + 0.5);
      if (w[x - lo] > w[top]) top = x - lo;
    }
    // The largest weight takes the rounding's remainder: the weights sum to exactly 1, so a sum of
    // 8-bit pixels stays within 0..255 and needs no clamping.
    w[top] += (1 << PRECISION_BITS) - total;
    c->first[i] = lo;
    c->count[i] = hi - lo;
  }
  free(kw);
  return 0;
}

/** A sum (rounding half already added) back to 8 bits: within 0..255, the weights being non-negative and summing to 1. */
static uint8_t clip8(int32_t v) { return (uint8_t)(v >> PRECISION_BITS); }

/**
 * One row along x: `n` output pixels from the row `in`, whose first pixel is source pixel `base`
 * (3 channels: one pass per pixel).
 * `restrict`: the output bytes cannot alias the weights, so they stay in registers.
 */
static void row_x(const uint8_t *restrict in, int base, int channels, const coeffs *c, int n, uint8_t *restrict out) {
  const int32_t half = 1 << (PRECISION_BITS - 1);
  const int taps = c->taps;
  const int *restrict first = c->first, *restrict count = c->count;
  for (int i = 0; i < n; i++) {
    const int32_t *restrict w = c->w + (size_t)i * taps;
    const uint8_t *restrict s = in + (size_t)(first[i] - base) * channels;
    const int k = count[i];
    if (channels == 3) {
      int32_t r = half, g = half, b = half;
      for (int t = 0; t < k; t++) {
        r += s[3 * t] * w[t];
        g += s[3 * t + 1] * w[t];
        b += s[3 * t + 2] * w[t];
      }
      out[3 * i] = clip8(r), out[3 * i + 1] = clip8(g), out[3 * i + 2] = clip8(b);
      continue;
    }
    int32_t acc = half;
    for (int t = 0; t < k; t++) acc += s[t] * w[t];
    out[i] = clip8(acc);
  }
}

/** One output row along y from the rows of `in` (row `base` first), `bytes` values a row; `acc`: scratch of `bytes`. */
static void row_y(const uint8_t *in, size_t stride, int base, const coeffs *c, int i, size_t bytes, int32_t *restrict acc,
                  uint8_t *restrict out) {
  const int32_t *w = c->w + (size_t)i * c->taps;
  const uint8_t *s = in + (size_t)(c->first[i] - base) * stride;
  const int k = c->count[i];
  for (size_t b = 0; b < bytes; b++) acc[b] = 1 << (PRECISION_BITS - 1);
  // Tap by tap over the whole row: the inner loop runs along memory and vectorises.
  for (int t = 0; t < k; t++, s += stride) {
    const int32_t wt = w[t];
    const uint8_t *restrict row = s;
    for (size_t b = 0; b < bytes; b++) acc[b] += row[b] * wt;
  }
  for (size_t b = 0; b < bytes; b++) out[b] = clip8(acc[b]);
}

int mgpu_resample(const uint8_t *src, int src_w, int src_h, int channels, mgpu_axis x, mgpu_axis y, uint8_t *out,
                  int out_w) {
  (void)src_h;
  coeffs cx, cy;
  if (make_coeffs(x, &cx)) return -1;
  if (make_coeffs(y, &cy)) return free_coeffs(&cx), -1;
  // The vertical pass first, over the source columns the horizontal one reads: it runs along
  // whole rows (vectorised), and leaves the slower horizontal pass only the output's rows.
  int x0 = cx.first[0], x1 = cx.first[x.dst_count - 1] + cx.count[x.dst_count - 1];
  size_t stride = (size_t)(x1 - x0) * channels;
  uint8_t *mid = malloc(stride * y.dst_count);
  int32_t *acc = malloc(sizeof(int32_t) * stride);
  if (!mid || !acc) return free(mid), free(acc), free_coeffs(&cx), free_coeffs(&cy), -1;
  const uint8_t *columns = src + (size_t)x0 * channels;
  for (int i = 0; i < y.dst_count; i++) row_y(columns, (size_t)src_w * channels, 0, &cy, i, stride, acc, mid + i * stride);
  size_t out_stride = (size_t)out_w * channels;
  for (int i = 0; i < y.dst_count; i++)
    row_x(mid + i * stride, x0, channels, &cx, x.dst_count, out + (size_t)(y.out_off + i) * out_stride + (size_t)x.out_off * channels);
  free(mid);
  free(acc);
  free_coeffs(&cx);
  free_coeffs(&cy);
  return 0;
}
