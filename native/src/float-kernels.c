// mgpu_float_kernels: the elementwise loops of the step, in C so that the compiler vectorises
// them. They are the same arithmetic as their JavaScript fallbacks in src/shared/float-kernels.ts,
// operation for operation, so a run gives the same bits with or without this addon:
//
//   add(out, g)                     out[i] += g[i]                       float32 adds
//   addSquares(out, g|null, chunk, sums)
//                                   out[i] += g[i] (when g is given); then for each chunk k of
//                                   `chunk` floats, sums[k] = Σ out[i]² in float64 over 8 lanes
//                                   (lane = position in the chunk mod 8, each lane summed in
//                                   order), the lanes combined as ((0+1)+(2+3))+((4+5)+(6+7))
//   allFinite(a) -> boolean         no NaN and no ±Infinity in a
//   sgd(w, g, c)                    w[i] = (float)c * g[i] + w[i], two float32 operations (as tfjs)
//   adam(w, g, m, v, k)             the Adam (and AdamW) update of src/coordinator/optimizers/adam.ts
//                                   in float32 operations, tfjs's order; k holds its 9 float32
//                                   scalars: beta1, beta2, 1-beta1, 1-beta2, 1-beta1^t, 1-beta2^t,
//                                   epsilon, -lr, the weight-decay factor (1: none)
//   momentum(w, g, a, k)            momentum.ts: k = momentum, -lr, nesterov (1) or not (0)
//   rmsprop(w, g, ms, mom, mg|null, k)
//                                   rmsprop.ts (centered when mg is given): k = decay, 1-decay,
//                                   momentum, epsilon, lr
//   adagrad(w, g, acc, k)           adagrad.ts: k = epsilon, -lr
//
// Plain C against node_api.h, context-aware, no global state (like mgpu_mmap). Built with
// -ffp-contract=off: a fused multiply-add would round differently from JavaScript.
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

static bool typed(napi_env env, const char* fn, napi_value v, const char* name, napi_typedarray_type want, void** data, size_t* length) {
  bool is = false;
  napi_is_typedarray(env, v, &is);
  napi_typedarray_type type;
  if (is && napi_get_typedarray_info(env, v, &type, length, data, NULL, NULL) == napi_ok && type == want) return true;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s must be a %s", fn, name, want == napi_float32_array ? "Float32Array" : "Float64Array");
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
  return false;
}

static bool same_length(napi_env env, const char* fn, size_t a, size_t b) {
  if (a == b) return true;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: the arrays differ in length (%zu and %zu)", fn, a, b);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return false;
}

static bool args(napi_env env, napi_callback_info info, size_t want, napi_value* argv, const char* usage) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc < want) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
    return false;
  }
  return true;
}

// The first two arguments: Float32Arrays of one length, named `a_name` and `b_name` in errors.
static bool float_pair(napi_env env, const char* fn, napi_value* argv, const char* a_name, const char* b_name, float** a, float** b, size_t* n) {
  size_t m;
  return typed(env, fn, argv[0], a_name, napi_float32_array, (void**)a, n) &&
         typed(env, fn, argv[1], b_name, napi_float32_array, (void**)b, &m) && same_length(env, fn, *n, m);
}

static napi_value Add(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv, "add(out, g) takes two Float32Arrays")) return NULL;
  float *out, *g;
  size_t n;
  if (!float_pair(env, "add", argv, "out", "g", &out, &g, &n)) return NULL;
  for (size_t i = 0; i < n; i++) out[i] += g[i];
  return NULL;
}

static double chunk_squares(const float* a, size_t n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; l++) {
      const double v = a[i + l];
      s[l] += v * v;
    }
  }
  for (int l = 0; i < n; i++, l++) {
    const double v = a[i];
    s[l] += v * v;
  }
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static napi_value AddSquares(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv, "addSquares(out, g | null, chunk, sums)")) return NULL;
  float *out, *g = NULL;
  double* sums;
  size_t n, m, k;
  if (!typed(env, "addSquares", argv[0], "out", napi_float32_array, (void**)&out, &n)) return NULL;
  napi_valuetype gt;
  napi_typeof(env, argv[1], &gt);
  if (gt != napi_null && gt != napi_undefined) {
    if (!typed(env, "addSquares", argv[1], "g", napi_float32_array, (void**)&g, &m)) return NULL;
    if (!same_length(env, "addSquares", n, m)) return NULL;
  }
  double chunk_d;
  if (napi_get_value_double(env, argv[2], &chunk_d) != napi_ok || !(chunk_d >= 8) || chunk_d != (double)(size_t)chunk_d || ((size_t)chunk_d & 7) != 0) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "addSquares: chunk must be a positive multiple of 8");
    return NULL;
  }
  const size_t chunk = (size_t)chunk_d;
  if (!typed(env, "addSquares", argv[3], "sums", napi_float64_array, (void**)&sums, &k)) return NULL;
  if (k != (n + chunk - 1) / chunk) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "addSquares: sums must hold one float64 per chunk");
    return NULL;
  }
  for (size_t c = 0, j = 0; c < n; c += chunk, j++) {
    const size_t len = n - c < chunk ? n - c : chunk;
    if (g) {
      float* o = out + c;
      const float* x = g + c;
      for (size_t i = 0; i < len; i++) o[i] += x[i];
    }
    sums[j] = chunk_squares(out + c, len);
  }
  return NULL;
}

static napi_value AllFinite(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv, "allFinite(a) takes a Float32Array")) return NULL;
  float* a;
  size_t n;
  if (!typed(env, "allFinite", argv[0], "a", napi_float32_array, (void**)&a, &n)) return NULL;
  // Exponent bits all ones: Infinity or NaN. Integer compares and an OR, which vectorise.
  const uint32_t* bits = (const uint32_t*)a;
  uint32_t bad = 0;
  for (size_t i = 0; i < n; i++) bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
  napi_value v;
  napi_get_boolean(env, bad == 0, &v);
  return v;
}

static napi_value Sgd(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, 3, argv, "sgd(w, g, c) takes two Float32Arrays and a number")) return NULL;
  float *w, *g;
  size_t n;
  double c;
  if (!float_pair(env, "sgd", argv, "w", "g", &w, &g, &n)) return NULL;
  if (napi_get_value_double(env, argv[2], &c) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "sgd: c must be a number");
    return NULL;
  }
  const float cf = (float)c;
  for (size_t i = 0; i < n; i++) w[i] = cf * g[i] + w[i];
  return NULL;
}

static bool float_arg_of(napi_env env, const char* fn, napi_value v, const char* name, size_t n, float** data) {
  size_t m;
  return typed(env, fn, v, name, napi_float32_array, (void**)data, &m) && same_length(env, fn, n, m);
}

static bool float_arg(napi_env env, napi_value v, const char* name, size_t n, float** data) {
  return float_arg_of(env, "adam", v, name, n, data);
}

// The last argument of an update kernel: a Float32Array of exactly `want` scalars.
static bool scalars(napi_env env, const char* fn, napi_value v, size_t want, float** k, const char* what) {
  size_t nk;
  if (!typed(env, fn, v, "k", napi_float32_array, (void**)k, &nk)) return false;
  if (nk == want) return true;
  char msg[200];
  snprintf(msg, sizeof msg, "%s: k must hold %zu floats (%s)", fn, want, what);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return false;
}

static napi_value Momentum(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv, "momentum(w, g, a, k) takes four Float32Arrays")) return NULL;
  float *w, *g, *a, *k;
  size_t n;
  if (!float_pair(env, "momentum", argv, "w", "g", &w, &g, &n) || !float_arg_of(env, "momentum", argv[2], "a", n, &a)) return NULL;
  if (!scalars(env, "momentum", argv[3], 3, &k, "momentum, -lr, nesterov")) return NULL;
  const float mu = k[0], c = k[1];
  if (k[2] != 0) {
    for (size_t i = 0; i < n; i++) {
      const float gi = g[i];
      const float ai = mu * a[i] + gi;
      a[i] = ai;
      w[i] = c * (gi + ai * mu) + w[i];
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      const float ai = mu * a[i] + g[i];
      a[i] = ai;
      w[i] = c * ai + w[i];
    }
  }
  return NULL;
}

static napi_value Rmsprop(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!args(env, info, 6, argv, "rmsprop(w, g, ms, mom, mg | null, k)")) return NULL;
  float *w, *g, *ms, *mom, *mg = NULL, *k;
  size_t n;
  if (!float_pair(env, "rmsprop", argv, "w", "g", &w, &g, &n) || !float_arg_of(env, "rmsprop", argv[2], "ms", n, &ms) ||
      !float_arg_of(env, "rmsprop", argv[3], "mom", n, &mom))
    return NULL;
  napi_valuetype mt;
  napi_typeof(env, argv[4], &mt);
  if (mt != napi_null && mt != napi_undefined && !float_arg_of(env, "rmsprop", argv[4], "mg", n, &mg)) return NULL;
  if (!scalars(env, "rmsprop", argv[5], 5, &k, "decay, 1-decay, momentum, epsilon, lr")) return NULL;
  const float rho = k[0], omr = k[1], mu = k[2], eps = k[3], lr = k[4];
  if (mg) {
    for (size_t i = 0; i < n; i++) {
      const float gi = g[i];
      const float s = ms[i] * rho + (gi * gi) * omr;
      const float m = mg[i] * rho + gi * omr;
      const float q = (gi * lr) / sqrtf(s - (m * m + eps));
      const float p = mom[i] * mu + q;
      ms[i] = s;
      mg[i] = m;
      mom[i] = p;
      w[i] = w[i] - p;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      const float gi = g[i];
      const float s = ms[i] * rho + (gi * gi) * omr;
      const float p = mom[i] * mu + (gi * lr) / sqrtf(s + eps);
      ms[i] = s;
      mom[i] = p;
      w[i] = w[i] - p;
    }
  }
  return NULL;
}

static napi_value Adagrad(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv, "adagrad(w, g, acc, k) takes four Float32Arrays")) return NULL;
  float *w, *g, *acc, *k;
  size_t n;
  if (!float_pair(env, "adagrad", argv, "w", "g", &w, &g, &n) || !float_arg_of(env, "adagrad", argv[2], "acc", n, &acc)) return NULL;
  if (!scalars(env, "adagrad", argv[3], 2, &k, "epsilon, -lr")) return NULL;
  const float eps = k[0], c = k[1];
  for (size_t i = 0; i < n; i++) {
    const float gi = g[i];
    const float a = acc[i] + gi * gi;
    acc[i] = a;
    w[i] = (gi / sqrtf(a + eps)) * c + w[i];
  }
  return NULL;
}

static napi_value Adam(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!args(env, info, 5, argv, "adam(w, g, m, v, k) takes five Float32Arrays")) return NULL;
  float *w, *g, *m, *v, *k;
  size_t n, nk;
  if (!float_pair(env, "adam", argv, "w", "g", &w, &g, &n) || !float_arg(env, argv[2], "m", n, &m) || !float_arg(env, argv[3], "v", n, &v)) return NULL;
  if (!typed(env, "adam", argv[4], "k", napi_float32_array, (void**)&k, &nk)) return NULL;
  if (nk != 9) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "adam: k must hold 9 floats (beta1, beta2, 1-beta1, 1-beta2, 1-beta1^t, 1-beta2^t, epsilon, -lr, decay)");
    return NULL;
  }
  const float b1 = k[0], b2 = k[1], c1 = k[2], c2 = k[3], d1 = k[4], d2 = k[5], eps = k[6], nlr = k[7], wd = k[8];
  // Each operation on floats rounds to float32 (FLT_EVAL_METHOD 0, no contraction): the
  // JavaScript fallback's Math.fround after every operation.
  for (size_t i = 0; i < n; i++) {
    const float gi = g[i];
    const float mi = m[i] * b1 + gi * c1;
    const float vi = v[i] * b2 + (gi * gi) * c2;
    m[i] = mi;
    v[i] = vi;
    const float step = (mi / d1) / (sqrtf(vi / d2) + eps);
    w[i] = step * nlr + w[i] * wd;
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"add", NULL, Add, NULL, NULL, NULL, napi_enumerable, NULL},
    {"addSquares", NULL, AddSquares, NULL, NULL, NULL, napi_enumerable, NULL},
    {"allFinite", NULL, AllFinite, NULL, NULL, NULL, napi_enumerable, NULL},
    {"sgd", NULL, Sgd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"adam", NULL, Adam, NULL, NULL, NULL, napi_enumerable, NULL},
    {"momentum", NULL, Momentum, NULL, NULL, NULL, napi_enumerable, NULL},
    {"rmsprop", NULL, Rmsprop, NULL, NULL, NULL, napi_enumerable, NULL},
    {"adagrad", NULL, Adagrad, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
