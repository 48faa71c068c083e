// Batch normalisation in training for the wasm backend's tensors, channel axis last (NHWC, or any
// rank: R rows of C channels), part of mgpu_conv_kernels (conv-kernels.c registers the two
// functions). src/worker/wasm-kernels/batch-norm-train.ts holds the same loops in JavaScript for
// machines without the addon; both are tested against tfjs's op-by-op layer on the cpu backend.
//
//   batchNormTrain(x, gamma, beta, y, mean, variance, epsilon)
//       mean and the biased variance over the rows (what tfjs's moments gives and tfjs-layers'
//       moving variance takes), two passes with float64 sums (the second over x - mean, so a
//       large mean does not cancel), then y = (x - mean) · gamma / sqrt(variance + eps) + beta.
//   batchNormTrainGrad(x, dy, gamma, mean, variance, dmean|null, dvariance|null, dx, dgamma, dbeta, epsilon)
//       dbeta = Σ dy, dgamma = Σ dy · x̂ (float64 sums, one pass), then in a second pass
//       dx = gamma/σ · (dy - dbeta/R - x̂ · dgamma/R) + dmean/R + dvariance · 2(x - mean)/R,
//       with x̂ = (x - mean)/σ, σ = sqrt(variance + eps). dmean and dvariance are the gradients
//       reaching the mean and variance outputs (zeros in a layer, whose statistics only feed the
//       moving averages); null means zero.
//
// The loops run over the contiguous channels of a row, so the compiler vectorises them (-O3;
// SSE2 doubles for the sums, float32 for the element-wise passes).
#define NAPI_VERSION 8
#include <node_api.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch-norm.h"

static void bn_forward(long R, long C, const float* restrict x, const float* restrict gamma, const float* restrict beta, double eps,
                       float* restrict y, float* restrict mean, float* restrict var, double* restrict s, float* restrict scale) {
  for (long c = 0; c < C; c++) s[c] = 0;
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    for (long c = 0; c < C; c++) s[c] += xr[c];
  }
  double* restrict mu = s + C;
  for (long c = 0; c < C; c++) {
    mu[c] = s[c] / (double)R;
    s[c] = 0;
  }
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    for (long c = 0; c < C; c++) {
      double d = (double)xr[c] - mu[c];
      s[c] += d * d;
    }
  }
  for (long c = 0; c < C; c++) {
    mean[c] = (float)mu[c];
    var[c] = (float)(s[c] / (double)R);
    // From the float32 variance, as the gradient recomputes it.
    scale[c] = (float)((double)gamma[c] / sqrt((double)var[c] + eps));
  }
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    float* restrict yr = y + r * C;
    for (long c = 0; c < C; c++) yr[c] = (xr[c] - mean[c]) * scale[c] + beta[c];
  }
}

static void bn_backward(long R, long C, const float* restrict x, const float* restrict dy, const float* restrict gamma, const float* restrict mean,
                        const float* restrict var, const float* dmean, const float* dvar, double eps, float* restrict dx, float* restrict dgamma,
                        float* restrict dbeta, double* restrict s, float* restrict coef) {
  double* restrict sdy = s;
  double* restrict sdxc = s + C;
  for (long c = 0; c < C; c++) sdy[c] = sdxc[c] = 0;
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    const float* restrict dr = dy + r * C;
    for (long c = 0; c < C; c++) {
      double d = dr[c];
      sdy[c] += d;
      sdxc[c] += d * ((double)xr[c] - (double)mean[c]);
    }
  }
  // dx = A · (dy - M) + B · (x - mean) + E: dy - M before the scaling, so that dy's mean
  // cancels in float32 as exactly as x's does (one row: dx is exactly 0).
  float* restrict A = coef;
  float* restrict M = coef + C;
  float* restrict B = coef + 2 * C;
  float* restrict E = coef + 3 * C;
  for (long c = 0; c < C; c++) {
    double inv = 1 / sqrt((double)var[c] + eps);
    double g = gamma[c];
    dbeta[c] = (float)sdy[c];
    dgamma[c] = (float)(sdxc[c] * inv);
    A[c] = (float)(g * inv);
    M[c] = (float)(sdy[c] / (double)R);
    B[c] = (float)(-g * inv * inv * inv * sdxc[c] / (double)R + (dvar ? 2.0 * dvar[c] / (double)R : 0));
    E[c] = dmean ? (float)(dmean[c] / (double)R) : 0;
  }
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    const float* restrict dr = dy + r * C;
    float* restrict o = dx + r * C;
    for (long c = 0; c < C; c++) o[c] = A[c] * (dr[c] - M[c]) + B[c] * (xr[c] - mean[c]) + E[c];
  }
}

// ---- N-API ----

static bool args(napi_env env, napi_callback_info info, size_t want, napi_value* argv, const char* usage) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc >= want) return true;
  napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
  return false;
}

/** A Float32Array argument of at least `want` floats (null allowed when `nullable`: *data = NULL). */
static bool floats(napi_env env, const char* fn, napi_value v, const char* name, size_t want, bool nullable, float** data) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (nullable && t == napi_null) {
    *data = NULL;
    return true;
  }
  bool is = false;
  napi_typedarray_type type;
  size_t length = 0;
  napi_is_typedarray(env, v, &is);
  char msg[200];
  if (!is || napi_get_typedarray_info(env, v, &type, &length, (void**)data, NULL, NULL) != napi_ok || type != napi_float32_array) {
    snprintf(msg, sizeof msg, "%s: %s must be a Float32Array%s", fn, name, nullable ? " or null" : "");
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return false;
  }
  if (length >= want) return true;
  snprintf(msg, sizeof msg, "%s: %s holds %zu floats, needs %zu", fn, name, length, want);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return false;
}

/** The channels (gamma's length) and rows (x's length / C, which C must divide), and epsilon >= 0. */
static bool shape(napi_env env, const char* fn, napi_value xv, napi_value gv, napi_value ev, long* R, long* C, double* eps) {
  size_t nx = 0, nc = 0;
  float* p;
  napi_get_typedarray_info(env, xv, NULL, &nx, (void**)&p, NULL, NULL);
  napi_get_typedarray_info(env, gv, NULL, &nc, (void**)&p, NULL, NULL);
  char msg[200];
  if (nc == 0 || nx % nc != 0) {
    snprintf(msg, sizeof msg, "%s: x holds %zu floats, not a whole number of rows of gamma's %zu channels", fn, nx, nc);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return false;
  }
  if (napi_get_value_double(env, ev, eps) != napi_ok || !(*eps >= 0)) {
    snprintf(msg, sizeof msg, "%s: epsilon must be a number >= 0", fn);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return false;
  }
  *C = (long)nc;
  *R = (long)(nx / nc);
  return true;
}

/** Scratch of 2C doubles and `floats` floats, or NULL with an exception thrown. */
static void* scratch(napi_env env, long C, long nfloat) {
  void* p = malloc((size_t)(2 * C) * sizeof(double) + (size_t)nfloat * sizeof(float));
  if (!p) napi_throw_error(env, "ERR_MEMORY", "mgpu_conv_kernels: out of memory for the batch-norm sums");
  return p;
}

napi_value MgpuBatchNormTrain(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormTrain";
  napi_value a[7];
  if (!args(env, info, 7, a, "batchNormTrain(x, gamma, beta, y, mean, variance, epsilon)")) return NULL;
  float *x, *gamma, *beta, *y, *mean, *var;
  if (!floats(env, fn, a[0], "x", 0, false, &x) || !floats(env, fn, a[1], "gamma", 0, false, &gamma)) return NULL;
  long R, C;
  double eps;
  if (!shape(env, fn, a[0], a[1], a[6], &R, &C, &eps)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[2], "beta", c, false, &beta) || !floats(env, fn, a[3], "y", n, false, &y) || !floats(env, fn, a[4], "mean", c, false, &mean) ||
      !floats(env, fn, a[5], "variance", c, false, &var))
    return NULL;
  if (R == 0) {
    for (long k = 0; k < C; k++) mean[k] = var[k] = NAN;
    return NULL;
  }
  double* s = scratch(env, C, C);
  if (!s) return NULL;
  bn_forward(R, C, x, gamma, beta, eps, y, mean, var, s, (float*)(s + 2 * C));
  free(s);
  return NULL;
}

napi_value MgpuBatchNormTrainGrad(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormTrainGrad";
  napi_value a[11];
  if (!args(env, info, 11, a, "batchNormTrainGrad(x, dy, gamma, mean, variance, dmean, dvariance, dx, dgamma, dbeta, epsilon)")) return NULL;
  float *x, *dy, *gamma, *mean, *var, *dmean, *dvar, *dx, *dgamma, *dbeta;
  if (!floats(env, fn, a[0], "x", 0, false, &x) || !floats(env, fn, a[2], "gamma", 0, false, &gamma)) return NULL;
  long R, C;
  double eps;
  if (!shape(env, fn, a[0], a[2], a[10], &R, &C, &eps)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "dy", n, false, &dy) || !floats(env, fn, a[3], "mean", c, false, &mean) || !floats(env, fn, a[4], "variance", c, false, &var) ||
      !floats(env, fn, a[5], "dmean", c, true, &dmean) || !floats(env, fn, a[6], "dvariance", c, true, &dvar) || !floats(env, fn, a[7], "dx", n, false, &dx) ||
      !floats(env, fn, a[8], "dgamma", c, false, &dgamma) || !floats(env, fn, a[9], "dbeta", c, false, &dbeta))
    return NULL;
  double* s = scratch(env, C, 4 * C);
  if (!s) return NULL;
  bn_backward(R, C, x, dy, gamma, mean, var, dmean, dvar, eps, dx, dgamma, dbeta, s, (float*)(s + 2 * C));
  free(s);
  return NULL;
}
