// Batch normalisation in training for the wasm backend's tensors, channel axis last (NHWC, or any
// rank: R rows of C channels), part of mgpu_conv_kernels (conv-kernels.c registers the
// functions). src/worker/wasm-kernels/batch-norm-train.ts holds the same loops in JavaScript for
// machines without the addon, bit for bit; both are tested against tfjs's op-by-op layer on the
// cpu backend.
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
// Both are compositions of phases, one pass each, which are also exported on their own: with
// training.syncBatchNorm the TypeScript kernel (batch-norm-train.ts) sums each phase's float64
// sums over every worker between them, so that R becomes the rows of all workers. The
// compositions above are what they were before the split, bit for bit.
//
//   batchNormSums(x, sums)                         sums[c] = Σ x (C = sums.length)
//   batchNormSquaredDeviations(x, mu, m2)          m2[c] = Σ (x - mu)² (C = mu.length)
//   batchNormApply(x, gamma, beta, mean, variance, y, epsilon)
//                                                  y from the float32 mean and variance
//   batchNormGradSums(x, dy, mean, sdy, sdxc)      sdy[c] = Σ dy, sdxc[c] = Σ dy · (x - mean)
//   batchNormGradParams(sdy, sdxc, variance, dgamma, dbeta, epsilon)
//                                                  dbeta = sdy, dgamma = sdxc / σ
//   batchNormGradApply(x, dy, gamma, mean, variance, rows, sdy, sdxc, dmean|null, dvariance|null, dx, epsilon)
//                                                  dx from sums over `rows` rows (>= x's)
//
// The sums are Float64Arrays (views into the exchanged arrays are fine: an offset view's data
// starts at its offset). The loops run over the contiguous channels of a row, so the compiler
// vectorises them (-O3; SSE2 doubles for the sums, float32 for the element-wise passes).
#define NAPI_VERSION 8
#include <node_api.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch-norm.h"

// ---- The phases: each one pass over the rows (or one over the channels) ----

/** s[c] = Σ x[r][c] over the R rows, in float64. */
static void bn_sums(long R, long C, const float* restrict x, double* restrict s) {
  for (long c = 0; c < C; c++) s[c] = 0;
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    for (long c = 0; c < C; c++) s[c] += xr[c];
  }
}

/** m2[c] = Σ (x[r][c] - mu[c])² over the R rows, in float64: about a mean already known, so it does not cancel. */
static void bn_squared_deviations(long R, long C, const float* restrict x, const double* restrict mu, double* restrict m2) {
  for (long c = 0; c < C; c++) m2[c] = 0;
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    for (long c = 0; c < C; c++) {
      double d = (double)xr[c] - mu[c];
      m2[c] += d * d;
    }
  }
}

/** y = (x - mean) · scale + beta in float32, scale = gamma / sqrt(variance + eps) from the float32 variance (as the gradient recomputes it). */
static void bn_apply(long R, long C, const float* restrict x, const float* restrict gamma, const float* restrict beta, const float* restrict mean,
                     const float* restrict var, double eps, float* restrict y, float* restrict scale) {
  for (long c = 0; c < C; c++) scale[c] = (float)((double)gamma[c] / sqrt((double)var[c] + eps));
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    float* restrict yr = y + r * C;
    for (long c = 0; c < C; c++) yr[c] = (xr[c] - mean[c]) * scale[c] + beta[c];
  }
}

/** sdy[c] = Σ dy, sdxc[c] = Σ dy · (x - mean) over the R rows, in float64. */
static void bn_grad_sums(long R, long C, const float* restrict x, const float* restrict dy, const float* restrict mean, double* restrict sdy,
                         double* restrict sdxc) {
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
}

/** dbeta = Σ dy, dgamma = Σ dy · (x - mean) / σ, from the sums of bn_grad_sums. */
static void bn_grad_params(long C, const double* restrict sdy, const double* restrict sdxc, const float* restrict var, double eps, float* restrict dgamma,
                           float* restrict dbeta) {
  for (long c = 0; c < C; c++) {
    dbeta[c] = (float)sdy[c];
    dgamma[c] = (float)(sdxc[c] * (1 / sqrt((double)var[c] + eps)));
  }
}

/**
 * dx over the R rows given, from the sums over `rows` rows (R itself, or every worker's when the
 * statistics are synchronised): dx = A · (dy - M) + B · (x - mean) + E, in float32, dy - M before
 * the scaling so that dy's mean cancels in float32 as exactly as x's does (one row: dx is exactly
 * 0). dmean and dvar (the gradients reaching the mean and variance outputs) may be NULL: zero.
 */
static void bn_grad_dx(long R, long C, const float* restrict x, const float* restrict dy, const float* restrict gamma, const float* restrict mean,
                       const float* restrict var, double eps, double rows, const double* restrict sdy, const double* restrict sdxc, const double* dmean,
                       const double* dvar, float* restrict dx, float* restrict coef) {
  float* restrict A = coef;
  float* restrict M = coef + C;
  float* restrict B = coef + 2 * C;
  float* restrict E = coef + 3 * C;
  for (long c = 0; c < C; c++) {
    double inv = 1 / sqrt((double)var[c] + eps);
    double g = gamma[c];
    A[c] = (float)(g * inv);
    M[c] = (float)(sdy[c] / rows);
    B[c] = (float)(-g * inv * inv * inv * sdxc[c] / rows + (dvar ? 2.0 * dvar[c] / rows : 0));
    E[c] = dmean ? (float)(dmean[c] / rows) : 0;
  }
  for (long r = 0; r < R; r++) {
    const float* restrict xr = x + r * C;
    const float* restrict dr = dy + r * C;
    float* restrict o = dx + r * C;
    for (long c = 0; c < C; c++) o[c] = A[c] * (dr[c] - M[c]) + B[c] * (xr[c] - mean[c]) + E[c];
  }
}

// ---- The unsynchronised kernels: the phases composed over this process's rows ----

/** s: scratch of 2C doubles; scale: C floats. */
static void bn_forward(long R, long C, const float* restrict x, const float* restrict gamma, const float* restrict beta, double eps,
                       float* restrict y, float* restrict mean, float* restrict var, double* restrict s, float* restrict scale) {
  double* restrict mu = s;
  double* restrict m2 = s + C;
  bn_sums(R, C, x, mu);
  for (long c = 0; c < C; c++) mu[c] /= (double)R;
  bn_squared_deviations(R, C, x, mu, m2);
  for (long c = 0; c < C; c++) {
    mean[c] = (float)mu[c];
    var[c] = (float)(m2[c] / (double)R);
  }
  bn_apply(R, C, x, gamma, beta, mean, var, eps, y, scale);
}

/** s: scratch of 4C doubles (the two sums, then dmean and dvar widened); coef: 4C floats. */
static void bn_backward(long R, long C, const float* restrict x, const float* restrict dy, const float* restrict gamma, const float* restrict mean,
                        const float* restrict var, const float* dmean, const float* dvar, double eps, float* restrict dx, float* restrict dgamma,
                        float* restrict dbeta, double* restrict s, float* restrict coef) {
  double* restrict sdy = s;
  double* restrict sdxc = s + C;
  double* wide_dmean = dmean ? s + 2 * C : NULL;
  double* wide_dvar = dvar ? s + 3 * C : NULL;
  // float → double is exact: the same B and E as from the floats themselves.
  for (long c = 0; dmean && c < C; c++) wide_dmean[c] = dmean[c];
  for (long c = 0; dvar && c < C; c++) wide_dvar[c] = dvar[c];
  bn_grad_sums(R, C, x, dy, mean, sdy, sdxc);
  bn_grad_params(C, sdy, sdxc, var, eps, dgamma, dbeta);
  bn_grad_dx(R, C, x, dy, gamma, mean, var, eps, (double)R, sdy, sdxc, wide_dmean, wide_dvar, dx, coef);
}

// ---- N-API ----

static bool args(napi_env env, napi_callback_info info, size_t want, napi_value* argv, const char* usage) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc >= want) return true;
  napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
  return false;
}

/**
 * A typed array argument of `type` holding at least `want` elements (null allowed when
 * `nullable`: *data = NULL); its length in *length when length is not NULL.
 */
static bool typed(napi_env env, const char* fn, napi_value v, const char* name, napi_typedarray_type type, size_t want, bool nullable, void** data,
                  size_t* length) {
  const char* what = type == napi_float64_array ? "Float64Array" : "Float32Array";
  napi_valuetype t;
  napi_typeof(env, v, &t);
  size_t n = 0;
  if (nullable && t == napi_null) {
    *data = NULL;
  } else {
    bool is = false;
    napi_typedarray_type got;
    napi_is_typedarray(env, v, &is);
    char msg[200];
    if (!is || napi_get_typedarray_info(env, v, &got, &n, data, NULL, NULL) != napi_ok || got != type) {
      snprintf(msg, sizeof msg, "%s: %s must be a %s%s", fn, name, what, nullable ? " or null" : "");
      napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
      return false;
    }
    if (n < want) {
      snprintf(msg, sizeof msg, "%s: %s holds %zu values, needs %zu", fn, name, n, want);
      napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
      return false;
    }
  }
  if (length) *length = n;
  return true;
}

static bool floats(napi_env env, const char* fn, napi_value v, const char* name, size_t want, bool nullable, float** data) {
  return typed(env, fn, v, name, napi_float32_array, want, nullable, (void**)data, NULL);
}

static bool doubles(napi_env env, const char* fn, napi_value v, const char* name, size_t want, bool nullable, double** data) {
  return typed(env, fn, v, name, napi_float64_array, want, nullable, (void**)data, NULL);
}

/**
 * x, a Float32Array of whole rows of the channels of `cv` (`cname`: the Float32Array or
 * Float64Array whose length says C, gamma's or the sums'): its data, R and C.
 */
static bool x_rows(napi_env env, const char* fn, napi_value xv, napi_value cv, const char* cname, napi_typedarray_type ctype, float** x, long* R, long* C) {
  size_t nx = 0, nc = 0;
  void* p;
  if (!typed(env, fn, xv, "x", napi_float32_array, 0, false, (void**)x, &nx) || !typed(env, fn, cv, cname, ctype, 0, false, &p, &nc)) return false;
  if (nc == 0 || nx % nc != 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s: x holds %zu floats, not a whole number of rows of %s's %zu channels", fn, nx, cname, nc);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return false;
  }
  *C = (long)nc;
  *R = (long)(nx / nc);
  return true;
}

/** A number >= `least` (epsilon: 0; the rows the gradient's sums are over: x's own at least). */
static bool number(napi_env env, const char* fn, napi_value v, const char* name, double least, double* out) {
  if (napi_get_value_double(env, v, out) == napi_ok && *out >= least) return true;
  char msg[200];
  snprintf(msg, sizeof msg, "%s: %s must be a number >= %g", fn, name, least);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return false;
}

/** Scratch of `ndouble` doubles then `nfloat` floats, or NULL with an exception thrown. */
static void* scratch(napi_env env, long ndouble, long nfloat) {
  void* p = malloc((size_t)ndouble * sizeof(double) + (size_t)nfloat * sizeof(float));
  if (!p) napi_throw_error(env, "ERR_MEMORY", "mgpu_conv_kernels: out of memory for the batch-norm sums");
  return p;
}

napi_value MgpuBatchNormTrain(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormTrain";
  napi_value a[7];
  if (!args(env, info, 7, a, "batchNormTrain(x, gamma, beta, y, mean, variance, epsilon)")) return NULL;
  float *x, *gamma, *beta, *y, *mean, *var;
  long R, C;
  double eps;
  if (!x_rows(env, fn, a[0], a[1], "gamma", napi_float32_array, &x, &R, &C) || !number(env, fn, a[6], "epsilon", 0, &eps)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "gamma", c, false, &gamma) || !floats(env, fn, a[2], "beta", c, false, &beta) || !floats(env, fn, a[3], "y", n, false, &y) ||
      !floats(env, fn, a[4], "mean", c, false, &mean) || !floats(env, fn, a[5], "variance", c, false, &var))
    return NULL;
  if (R == 0) {
    for (long k = 0; k < C; k++) mean[k] = var[k] = NAN;
    return NULL;
  }
  double* s = scratch(env, 2 * C, C);
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
  long R, C;
  double eps;
  if (!x_rows(env, fn, a[0], a[2], "gamma", napi_float32_array, &x, &R, &C) || !number(env, fn, a[10], "epsilon", 0, &eps)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "dy", n, false, &dy) || !floats(env, fn, a[2], "gamma", c, false, &gamma) || !floats(env, fn, a[3], "mean", c, false, &mean) ||
      !floats(env, fn, a[4], "variance", c, false, &var) || !floats(env, fn, a[5], "dmean", c, true, &dmean) ||
      !floats(env, fn, a[6], "dvariance", c, true, &dvar) || !floats(env, fn, a[7], "dx", n, false, &dx) || !floats(env, fn, a[8], "dgamma", c, false, &dgamma) ||
      !floats(env, fn, a[9], "dbeta", c, false, &dbeta))
    return NULL;
  double* s = scratch(env, 4 * C, 4 * C);
  if (!s) return NULL;
  bn_backward(R, C, x, dy, gamma, mean, var, dmean, dvar, eps, dx, dgamma, dbeta, s, (float*)(s + 4 * C));
  free(s);
  return NULL;
}

// ---- The phases one by one, for the synchronised statistics (batch-norm-train.ts exchanges the sums between them) ----

napi_value MgpuBatchNormSums(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormSums";
  napi_value a[2];
  if (!args(env, info, 2, a, "batchNormSums(x, sums)")) return NULL;
  float* x;
  double* sums;
  long R, C;
  if (!x_rows(env, fn, a[0], a[1], "sums", napi_float64_array, &x, &R, &C) || !doubles(env, fn, a[1], "sums", 0, false, &sums)) return NULL;
  bn_sums(R, C, x, sums);
  return NULL;
}

napi_value MgpuBatchNormSquaredDeviations(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormSquaredDeviations";
  napi_value a[3];
  if (!args(env, info, 3, a, "batchNormSquaredDeviations(x, mu, m2)")) return NULL;
  float* x;
  double *mu, *m2;
  long R, C;
  if (!x_rows(env, fn, a[0], a[1], "mu", napi_float64_array, &x, &R, &C) || !doubles(env, fn, a[1], "mu", 0, false, &mu) ||
      !doubles(env, fn, a[2], "m2", (size_t)C, false, &m2))
    return NULL;
  bn_squared_deviations(R, C, x, mu, m2);
  return NULL;
}

napi_value MgpuBatchNormApply(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormApply";
  napi_value a[7];
  if (!args(env, info, 7, a, "batchNormApply(x, gamma, beta, mean, variance, y, epsilon)")) return NULL;
  float *x, *gamma, *beta, *mean, *var, *y;
  long R, C;
  double eps;
  if (!x_rows(env, fn, a[0], a[1], "gamma", napi_float32_array, &x, &R, &C) || !number(env, fn, a[6], "epsilon", 0, &eps)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "gamma", c, false, &gamma) || !floats(env, fn, a[2], "beta", c, false, &beta) || !floats(env, fn, a[3], "mean", c, false, &mean) ||
      !floats(env, fn, a[4], "variance", c, false, &var) || !floats(env, fn, a[5], "y", n, false, &y))
    return NULL;
  float* scale = scratch(env, 0, C);
  if (!scale) return NULL;
  bn_apply(R, C, x, gamma, beta, mean, var, eps, y, scale);
  free(scale);
  return NULL;
}

napi_value MgpuBatchNormGradSums(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormGradSums";
  napi_value a[5];
  if (!args(env, info, 5, a, "batchNormGradSums(x, dy, mean, sdy, sdxc)")) return NULL;
  float *x, *dy, *mean;
  double *sdy, *sdxc;
  long R, C;
  if (!x_rows(env, fn, a[0], a[2], "mean", napi_float32_array, &x, &R, &C)) return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "dy", n, false, &dy) || !floats(env, fn, a[2], "mean", c, false, &mean) || !doubles(env, fn, a[3], "sdy", c, false, &sdy) ||
      !doubles(env, fn, a[4], "sdxc", c, false, &sdxc))
    return NULL;
  bn_grad_sums(R, C, x, dy, mean, sdy, sdxc);
  return NULL;
}

napi_value MgpuBatchNormGradParams(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormGradParams";
  napi_value a[6];
  if (!args(env, info, 6, a, "batchNormGradParams(sdy, sdxc, variance, dgamma, dbeta, epsilon)")) return NULL;
  double *sdy, *sdxc;
  float *var, *dgamma, *dbeta;
  size_t c = 0;
  double eps;
  if (!typed(env, fn, a[2], "variance", napi_float32_array, 0, false, (void**)&var, &c) || !number(env, fn, a[5], "epsilon", 0, &eps)) return NULL;
  if (!doubles(env, fn, a[0], "sdy", c, false, &sdy) || !doubles(env, fn, a[1], "sdxc", c, false, &sdxc) || !floats(env, fn, a[3], "dgamma", c, false, &dgamma) ||
      !floats(env, fn, a[4], "dbeta", c, false, &dbeta))
    return NULL;
  bn_grad_params((long)c, sdy, sdxc, var, eps, dgamma, dbeta);
  return NULL;
}

napi_value MgpuBatchNormGradApply(napi_env env, napi_callback_info info) {
  const char* fn = "batchNormGradApply";
  napi_value a[12];
  if (!args(env, info, 12, a, "batchNormGradApply(x, dy, gamma, mean, variance, rows, sdy, sdxc, dmean, dvariance, dx, epsilon)")) return NULL;
  float *x, *dy, *gamma, *mean, *var, *dx;
  double *sdy, *sdxc, *dmean, *dvar;
  long R, C;
  double total, eps;
  if (!x_rows(env, fn, a[0], a[2], "gamma", napi_float32_array, &x, &R, &C) || !number(env, fn, a[5], "rows", (double)R, &total) ||
      !number(env, fn, a[11], "epsilon", 0, &eps))
    return NULL;
  size_t n = (size_t)(R * C), c = (size_t)C;
  if (!floats(env, fn, a[1], "dy", n, false, &dy) || !floats(env, fn, a[2], "gamma", c, false, &gamma) || !floats(env, fn, a[3], "mean", c, false, &mean) ||
      !floats(env, fn, a[4], "variance", c, false, &var) || !doubles(env, fn, a[6], "sdy", c, false, &sdy) || !doubles(env, fn, a[7], "sdxc", c, false, &sdxc) ||
      !doubles(env, fn, a[8], "dmean", c, true, &dmean) || !doubles(env, fn, a[9], "dvariance", c, true, &dvar) || !floats(env, fn, a[10], "dx", n, false, &dx))
    return NULL;
  float* coef = scratch(env, 0, 4 * C);
  if (!coef) return NULL;
  bn_grad_dx(R, C, x, dy, gamma, mean, var, eps, total, sdy, sdxc, dmean, dvar, dx, coef);
  free(coef);
  return NULL;
}
