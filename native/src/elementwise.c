// Element-wise kernels of mgpu_conv_kernels for the wasm backend's comparisons, logical ops,
// Maximum / Minimum, Select and LeakyRelu (src/worker/wasm-kernels/elementwise.ts says why and
// when they run), registered by conv-kernels.c. Each is one loop the compiler vectorises (-O3):
// every value is loaded and every comparison made each time, and a select is a blend.
//
//   binary(op, a, b, out)       op 0 Greater, 1 GreaterEqual, 2 Less, 3 LessEqual, 4 Equal,
//                               5 NotEqual, 6 LogicalAnd, 7 LogicalOr (out a Uint8Array of 0 / 1),
//                               8 Maximum, 9 Minimum (out of a's type); a and b of one type
//                               (Float32Array, Int32Array or Uint8Array), each out's length or 1
//                               (broadcast); Maximum is std::max (x < y ? y : x) and Minimum
//                               std::min (y < x ? y : x), as wasm computes them
//   select(cond, t, e, out)     out = cond ? t : e; cond a Uint8Array, t, e and out of one type,
//                               all of one length
//   leakyRelu(x, out, alpha)    out = x < 0 ? alpha · x : x in float32 (alpha rounded to float32)
// gcc will not turn a float comparison's branch into a blend while comparisons may trap (its
// default -ftrapping-math), and so leaves these loops scalar ("control flow in loop"): 8 ms for
// LeakyRelu over 1.8 M floats instead of under 1. Nothing here reads the FP exception flags, and
// no value changes (no reassociation, no contraction).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "elementwise.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** One typed array argument: its type, length and data; false (a TypeError thrown) if it is none. */
static bool typed_arg(napi_env env, napi_value v, const char* usage, size_t at, napi_typedarray_type* type, size_t* n, void** data) {
  bool is = false;
  napi_is_typedarray(env, v, &is);
  if (is && napi_get_typedarray_info(env, v, type, n, data, NULL, NULL) == napi_ok) return true;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: argument %zu must be a typed array", usage, at + 1);
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
  return false;
}

/** Throws "usage: what" (a RangeError for ERR_OUT_OF_RANGE, else a TypeError) and returns NULL. */
static napi_value fail(napi_env env, const char* code, const char* usage, const char* what) {
  char msg[200];
  snprintf(msg, sizeof msg, "%s: %s", usage, what);
  if (code[4] == 'O') napi_throw_range_error(env, code, msg); // ERR_OUT_OF_RANGE
  else napi_throw_type_error(env, code, msg);
  return NULL;
}

// One loop over n elements with x from a (all of it, or its one element) and y likewise from b.
#define LOOP(T, OT, EXPR)                                                        \
  do {                                                                           \
    const T* restrict A = (const T*)a;                                           \
    const T* restrict B = (const T*)b;                                           \
    OT* restrict O = (OT*)out;                                                   \
    if (na == 1 && nb == 1) {                                                    \
      const T x = A[0], y = B[0];                                                \
      for (size_t i = 0; i < n; i++) O[i] = (OT)(EXPR);                          \
    } else if (na == 1) {                                                        \
      const T x = A[0];                                                          \
      for (size_t i = 0; i < n; i++) {                                           \
        const T y = B[i];                                                        \
        O[i] = (OT)(EXPR);                                                       \
      }                                                                          \
    } else if (nb == 1) {                                                        \
      const T y = B[0];                                                          \
      for (size_t i = 0; i < n; i++) {                                           \
        const T x = A[i];                                                        \
        O[i] = (OT)(EXPR);                                                       \
      }                                                                          \
    } else {                                                                     \
      for (size_t i = 0; i < n; i++) {                                           \
        const T x = A[i], y = B[i];                                              \
        O[i] = (OT)(EXPR);                                                       \
      }                                                                          \
    }                                                                            \
  } while (0)

#define OPS(T)                                                                   \
  switch (op) {                                                                  \
    case 0: LOOP(T, uint8_t, x > y); break;                                      \
    case 1: LOOP(T, uint8_t, x >= y); break;                                     \
    case 2: LOOP(T, uint8_t, x < y); break;                                      \
    case 3: LOOP(T, uint8_t, x <= y); break;                                     \
    case 4: LOOP(T, uint8_t, x == y); break;                                     \
    case 5: LOOP(T, uint8_t, x != y); break;                                     \
    case 6: LOOP(T, uint8_t, (x != 0) & (y != 0)); break;                        \
    case 7: LOOP(T, uint8_t, (x != 0) | (y != 0)); break;                        \
    case 8: LOOP(T, T, x < y ? y : x); break;                                    \
    case 9: LOOP(T, T, y < x ? y : x); break;                                    \
  }

static void binary_loops(int op, napi_typedarray_type type, const void* a, size_t na, const void* b, size_t nb, void* out, size_t n) {
  if (type == napi_float32_array) OPS(float)
  else if (type == napi_int32_array) OPS(int32_t)
  else OPS(uint8_t)
}

napi_value MgpuBinary(napi_env env, napi_callback_info info) {
  const char* usage = "binary(op, a, b, out)";
  napi_value argv[4];
  size_t argc = 4;
  int32_t op = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 4) return fail(env, "ERR_MISSING_ARGS", usage, "four arguments");
  if (napi_get_value_int32(env, argv[0], &op) != napi_ok || op < 0 || op > 9) return fail(env, "ERR_OUT_OF_RANGE", usage, "op must be 0-9");
  napi_typedarray_type ta, tb, to;
  size_t na, nb, n;
  void *a, *b, *out;
  if (!typed_arg(env, argv[1], usage, 1, &ta, &na, &a) || !typed_arg(env, argv[2], usage, 2, &tb, &nb, &b) || !typed_arg(env, argv[3], usage, 3, &to, &n, &out)) return NULL;
  bool known = ta == napi_float32_array || ta == napi_int32_array || ta == napi_uint8_array;
  if (!known || ta != tb) return fail(env, "ERR_INVALID_ARG_TYPE", usage, "a and b must be both Float32Array, Int32Array or Uint8Array");
  if (to != (op < 8 ? napi_uint8_array : ta)) return fail(env, "ERR_INVALID_ARG_TYPE", usage, "out must be a Uint8Array for a comparison or logical op, else of a's type");
  if ((na != n && na != 1) || (nb != n && nb != 1)) return fail(env, "ERR_OUT_OF_RANGE", usage, "a and b must each hold out's length or 1 element");
  binary_loops(op, ta, a, na, b, nb, out, n);
  return NULL;
}

#define SELECT(T)                                                                \
  do {                                                                           \
    const T* restrict tv = (const T*)t;                                          \
    const T* restrict ev = (const T*)e;                                          \
    T* restrict ov = (T*)out;                                                    \
    for (size_t i = 0; i < n; i++) {                                             \
      const T x = tv[i], y = ev[i];                                              \
      ov[i] = c[i] ? x : y;                                                      \
    }                                                                            \
  } while (0)

napi_value MgpuSelect(napi_env env, napi_callback_info info) {
  const char* usage = "select(cond, t, e, out)";
  napi_value argv[4];
  size_t argc = 4;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 4) return fail(env, "ERR_MISSING_ARGS", usage, "four arguments");
  napi_typedarray_type tc, tt, te, to;
  size_t nc, nt, ne, n;
  void *cv, *t, *e, *out;
  if (!typed_arg(env, argv[0], usage, 0, &tc, &nc, &cv) || !typed_arg(env, argv[1], usage, 1, &tt, &nt, &t) || !typed_arg(env, argv[2], usage, 2, &te, &ne, &e) ||
      !typed_arg(env, argv[3], usage, 3, &to, &n, &out))
    return NULL;
  bool known = tt == napi_float32_array || tt == napi_int32_array || tt == napi_uint8_array;
  if (tc != napi_uint8_array || !known || te != tt || to != tt) return fail(env, "ERR_INVALID_ARG_TYPE", usage, "cond must be a Uint8Array, and t, e and out of one type: Float32Array, Int32Array or Uint8Array");
  if (nc != n || nt != n || ne != n) return fail(env, "ERR_OUT_OF_RANGE", usage, "cond, t, e and out must be of one length");
  const uint8_t* restrict c = cv;
  if (tt == napi_float32_array) SELECT(float);
  else if (tt == napi_int32_array) SELECT(int32_t);
  else SELECT(uint8_t);
  return NULL;
}

napi_value MgpuLeakyRelu(napi_env env, napi_callback_info info) {
  const char* usage = "leakyRelu(x, out, alpha)";
  napi_value argv[3];
  size_t argc = 3;
  double alpha_arg = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3) return fail(env, "ERR_MISSING_ARGS", usage, "three arguments");
  napi_typedarray_type tx, to;
  size_t nx, n;
  void *xv, *ov;
  if (!typed_arg(env, argv[0], usage, 0, &tx, &nx, &xv) || !typed_arg(env, argv[1], usage, 1, &to, &n, &ov)) return NULL;
  if (tx != napi_float32_array || to != napi_float32_array) return fail(env, "ERR_INVALID_ARG_TYPE", usage, "x and out must be Float32Arrays");
  if (nx != n) return fail(env, "ERR_OUT_OF_RANGE", usage, "x and out must be of one length");
  if (napi_get_value_double(env, argv[2], &alpha_arg) != napi_ok) return fail(env, "ERR_INVALID_ARG_TYPE", usage, "alpha must be a number");
  const float alpha = (float)alpha_arg;
  const float* restrict x = xv;
  float* restrict out = ov;
  for (size_t i = 0; i < n; i++) {
    const float v = x[i], p = alpha * v;
    out[i] = v < 0.0f ? p : v;
  }
  return NULL;
}
