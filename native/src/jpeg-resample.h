// Resampling of 8-bit interleaved pixels with the triangle (bilinear) filter, antialiased when
// shrinking: PIL's Image.resize(BILINEAR) arithmetic (22-bit fixed-point weights, the horizontal
// pass first, rounded to 8 bits between the passes), so the result is the same on every CPU.
#ifndef MGPU_JPEG_RESAMPLE_H
#define MGPU_JPEG_RESAMPLE_H

#include <stdint.h>

// One axis of a resize: source pixels [src_start, src_start + src_len) are resized by `scale`
// (source pixels per output pixel) to a virtual `full_len` pixels centred on them, of which
// [dst_off, dst_off + dst_count) are kept and written from `out_off`. `scale` is src_len /
// full_len for a stretch; a crop or a pad gives both axes the same one (sharp's, libvips's), so
// full_len * scale may miss src_len by a fraction of a pixel, split between the two ends.
typedef struct {
  int src_start, src_len, full_len, dst_off, dst_count, out_off;
  double scale;
} mgpu_axis;

// Resizes `src` (src_w x src_h x channels) into `out` (out_w x out_h x channels) along `x` and
// `y`; pixels of `out` outside the written box are left as they are. Returns 0, or -1 when out
// of memory.
int mgpu_resample(const uint8_t *src, int src_w, int src_h, int channels, mgpu_axis x, mgpu_axis y, uint8_t *out,
                  int out_w);

#endif
