// The fused ReLU6 of mgpu_conv_kernels (src/worker/fused-relu6.ts says why and what it computes),
// registered by conv-kernels.c: one pass each way, which -O3 vectorises.
//
//   relu6(x, y)            y = min(6, max(0, x)); NaN stays NaN
//   relu6Grad(x, dy, dx)   dx = dy · [6 > relu(x)] · step(x): dy where 0 < x < 6, else 0 (NaN where x
//                          or dy is NaN, or dy infinite and masked), the products tfjs's
//                          gradients of Minimum and Relu multiply, in their order
#include "relu6.h"

#include <stdbool.h>
#include <stdio.h>

/** n Float32Array arguments of equal length, their data in p and the length in *len. */
static bool same_length_floats(napi_env env, napi_callback_info info, const char* usage, size_t n, float** p, size_t* len) {
  napi_value argv[3];
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc < n) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    bool is = false;
    napi_typedarray_type type;
    size_t length = 0;
    napi_is_typedarray(env, argv[i], &is);
    char msg[160];
    if (!is || napi_get_typedarray_info(env, argv[i], &type, &length, (void**)&p[i], NULL, NULL) != napi_ok || type != napi_float32_array) {
      snprintf(msg, sizeof msg, "%s: argument %zu must be a Float32Array", usage, i + 1);
      napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
      return false;
    }
    if (i > 0 && length != *len) {
      snprintf(msg, sizeof msg, "%s: argument %zu holds %zu floats, the first %zu", usage, i + 1, length, *len);
      napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
      return false;
    }
    *len = length;
  }
  return true;
}

napi_value MgpuRelu6(napi_env env, napi_callback_info info) {
  float* p[2];
  size_t n = 0;
  if (!same_length_floats(env, info, "relu6(x, y)", 2, p, &n)) return NULL;
  const float* x = p[0];
  float* y = p[1];
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    y[i] = v > 0.0f ? (v < 6.0f ? v : 6.0f) : (v == v ? 0.0f : v);
  }
  return NULL;
}

napi_value MgpuRelu6Grad(napi_env env, napi_callback_info info) {
  float* p[3];
  size_t n = 0;
  if (!same_length_floats(env, info, "relu6Grad(x, dy, dx)", 3, p, &n)) return NULL;
  const float *x = p[0], *dy = p[1];
  float* dx = p[2];
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    float below_six = (v > 0.0f ? v : 0.0f) < 6.0f ? 1.0f : 0.0f; // Greater(6, relu(x)), 0 for NaN
    float step = v > 0.0f ? 1.0f : (v == v ? 0.0f : v);           // relu's Step: NaN stays NaN
    dx[i] = dy[i] * below_six * step;
  }
  return NULL;
}
