// The convolution and its two gradients on oneDNN (onednn-conv.c), where the addon was built
// with it (binding.gyp defines MGPU_ONEDNN where native/onednn-found.sh says oneDNN links). Each
// function returns false when oneDNN does not compute that call: the addon was built without it,
// onednn_use(false) turned it off (MGPU_CONV_LIBRARY=own), oneDNN declines the geometry (only a reference
// implementation, a right padding below zero, a dy larger than the output) or reports an error.
// The caller then runs its own kernel, which computes every geometry.
#ifndef MGPU_ONEDNN_CONV_H
#define MGPU_ONEDNN_CONV_H

#include <stdbool.h>

#include "conv-geometry.h"

#ifdef MGPU_ONEDNN
/** out = act(conv(x, w) + bias); act 0 linear, 1 relu, 2 relu6; bias may be NULL. */
bool onednn_forward(const geometry* g, const float* x, const float* w, const float* bias, float* out, int act);
/** dx = the gradient of the convolution with respect to x, for dy. */
bool onednn_backprop_input(const geometry* g, const float* dy, const float* w, float* dx);
/** dw = the gradient with respect to the filter [KH, KW, C, CO]. */
bool onednn_backprop_filter(const geometry* g, const float* x, const float* dy, float* dw);
/** "oneDNN <version>" where the addon has it (built with it, and its CPU engine starts), else NULL. */
const char* onednn_version(void);
/** Whether oneDNN computes the convolutions it takes (true until told otherwise), or the own kernels all. */
void onednn_use(bool on);
#else
static inline bool onednn_forward(const geometry* g, const float* x, const float* w, const float* bias, float* out, int act) {
  (void)g, (void)x, (void)w, (void)bias, (void)out, (void)act;
  return false;
}
static inline bool onednn_backprop_input(const geometry* g, const float* dy, const float* w, float* dx) {
  (void)g, (void)dy, (void)w, (void)dx;
  return false;
}
static inline bool onednn_backprop_filter(const geometry* g, const float* x, const float* dy, float* dw) {
  (void)g, (void)x, (void)dy, (void)dw;
  return false;
}
static inline const char* onednn_version(void) { return NULL; }
static inline void onednn_use(bool on) { (void)on; }
#endif

#endif
