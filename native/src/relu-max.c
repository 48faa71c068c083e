// The fused ReLU with a ceiling of mgpu_conv_kernels: the ReLU6 activation (src/worker/fused-relu6.ts)
// and the ReLU layer's maxValue (src/worker/fused-relu-layer.ts) say why and what each computes.
// Registered by conv-kernels.c; one pass each, which -O3 vectorises.
//
//   reluMax(x, y, max)           y = min(max, max(0, x)); NaN stays NaN (both forwards)
//   relu6Grad(x, dy, dx)         the ReLU6 activation's: dx = dy · [6 > relu(x)] · step(x), the
//                                products tfjs's gradients of Minimum and Relu multiply, in their order
//   reluMaxGrad(x, dy, dx, max)  the ReLU layer's: dx = (0 <= relu(x) <= max ? dy : 0) · step(x),
//                                tfjs's gradients of ClipByValue (a Select) and Relu, in their order
//
// relu6Grad and reluMaxGrad differ only where x = max exactly (0 and dy) and where a masked dy
// is infinite or NaN above the ceiling (NaN and 0): tfjs computes them so.
#include "relu-max.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/** n Float32Array arguments of equal length, their data in p and the length in *len. */
static bool same_length_floats(napi_env env, napi_callback_info info, const char* usage, size_t n, float** p, size_t* len) {
  napi_value argv[4];
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

/** The ceiling, the float32 the fourth-or-later argument rounds to (tfjs compares in float32 too). */
static bool ceiling_arg(napi_env env, napi_callback_info info, size_t at, const char* usage, float* max) {
  napi_value argv[4];
  size_t argc = 4;
  double value = NAN;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc <= at || napi_get_value_double(env, argv[at], &value) != napi_ok || !(value >= 0)) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: argument %zu must be a number >= 0 (the ceiling)", usage, at + 1);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return false;
  }
  *max = (float)value;
  return true;
}

napi_value MgpuReluMax(napi_env env, napi_callback_info info) {
  float* p[2];
  size_t n = 0;
  float max = 0;
  const char* usage = "reluMax(x, y, max)";
  if (!same_length_floats(env, info, usage, 2, p, &n) || !ceiling_arg(env, info, 2, usage, &max)) return NULL;
  const float *x = p[0], m = max; // as in reluMaxGrad
  float* y = p[1];
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    y[i] = v > 0.0f ? (v > m ? m : v) : (v == v ? 0.0f : v);
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

napi_value MgpuReluMaxGrad(napi_env env, napi_callback_info info) {
  float* p[3];
  size_t n = 0;
  float max = 0;
  const char* usage = "reluMaxGrad(x, dy, dx, max)";
  if (!same_length_floats(env, info, usage, 3, p, &n) || !ceiling_arg(env, info, 3, usage, &max)) return NULL;
  const float *x = p[0], *dy = p[1], m = max; // m: a local whose address never escaped, so the loop vectorises
  float* dx = p[2];
  for (size_t i = 0; i < n; i++) {
    float v = x[i], d = dy[i];                          // dy read unconditionally, so that the loop vectorises
    float clipped = v <= m ? d : 0.0f;                  // ClipByValue's Select(0 <= relu(x) <= max, dy, 0): with
                                                        // max >= 0 that is x <= max, false for NaN as for relu(NaN)
    float step = v > 0.0f ? 1.0f : 0.0f;
    step = v == v ? step : v; // relu's Step: NaN stays NaN (each comparison made every time, so the loop vectorises)
    dx[i] = clipped * step;
  }
  return NULL;
}
