// The geometry of a 2-D convolution as the wasm kernels pass it (native-conv.ts's convGeometry),
// shared by the addon's own kernels (conv-kernels.c) and the oneDNN path (onednn-conv.c).
#ifndef MGPU_CONV_GEOMETRY_H
#define MGPU_CONV_GEOMETRY_H

/** Sizes of NHWC x [B, H, W, C], the output [B, OH, OW, CO], the filter [KH, KW, C, CO]; strides; padding before the first row and column; dy's spatial size. */
typedef struct {
  long B, H, W, C, OH, OW, CO, KH, KW, sh, sw, top, left, dyH, dyW;
  long K; // KH·KW·C, a patch's length
  long N; // B·OH·OW, the output positions
} geometry;

#endif
