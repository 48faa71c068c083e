// mgpu_conv_kernels: the 2-D convolution and its two gradients for the wasm backend's tensors
// (NHWC, filter [kh, kw, inC, outC], dilation 1), in C. Each is a matrix product over the
// im2col patches: a patch matrix of a bounded number of output positions at a time (SCRATCH
// floats) is gathered into a scratch buffer, then multiplied by a packed, cache-blocked
// single-precision GEMM: an AVX-512 12x32 or AVX2+FMA 6x16 micro-kernel when the CPU has it
// (checked at run time: the binary is built without -march), else portable C the compiler
// vectorises. MGPU_CONV_ISA=avx2 or generic picks a slower one (the tests run each). The tensors are
// passed as Float32Array views of the wasm heap, so nothing is copied in or out.
//
//   conv2d(x, w, bias|null, out, geom, act)   out = act(patches(x) · W + bias); act 0 linear, 1 relu, 2 relu6
//   backpropInput(dy, w, dx, geom)            dx = col2im(dy · Wᵀ)
//   backpropFilter(x, dy, dw, geom)           dW = patches(x)ᵀ · dy
//   depthwiseBackpropFilter(x, dy, dw, geom)  the depthwise gradients (CO = C·M), channel by
//   depthwiseBackpropInput(dy, w, dx, geom)   channel: loops over the contiguous channels (the
//                                             filter's sums in float64)
//   isa() -> "avx512" | "avx2-fma" | "generic" which micro-kernel runs
//   onednnVersion() -> "oneDNN 2.6.3" | null  whether the addon has oneDNN (onednn-conv.c), which
//   useOnednn(on)                             then computes the three convolutions above unless
//                                             turned off (each falls back to the addon's own
//                                             kernel for what oneDNN declines)
//   batchNormTrain, batchNormTrainGrad        batch normalisation in training (batch-norm.c),
//   batchNormSums, ...GradApply               and its phases one by one (synchronised statistics)
//   fmaPeak(seconds) -> { gflops, isa }       one core's measured FMA peak (fma-peak.c)
//   reluMax(x, y, max), relu6Grad(x, dy, dx), the fused ReLU with a ceiling and its two gradients:
//   reluMaxGrad(x, dy, dx, max)               the ReLU6 activation's and the ReLU layer's (relu-max.c)
//   binary(op, a, b, out), select(cond, t,    comparisons, logical ops, Maximum / Minimum, Select
//   e, out), leakyRelu(x, out, alpha)         and LeakyRelu as wasm computes them (elementwise.c)
//
// geom is an Int32Array [B, H, W, C, OH, OW, CO, KH, KW, sh, sw, top, left, dyH, dyW]: the
// input, the output and the filter's sizes, strides, the padding before the first row and
// column, and dy's spatial size (it may exceed OH x OW: tfjs-core's Conv2D gradient drops
// dimRoundingMode; the extra rows and columns are ignored, as the cpu backend does).
//
// The sums are float32 in the GEMM's order (with fused multiply-adds on AVX2), so results match
// the cpu backend's to float32 rounding, not bit for bit. Plain C against node_api.h,
// context-aware; the only state is a per-thread scratch buffer, grown on demand and reused.
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch-norm.h"
#include "conv-geometry.h"
#include "fma-peak.h"
#include "onednn-conv.h"
#include "elementwise.h"
#include "relu-max.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MGPU_X86 1
#endif

// The micro-kernels compute MR x NR tiles of C; their MR and NR divide MC and NC.
#define MR_MAX 12
#define NR_MAX 32
#define KC 256
#define MC 96
#define NC 512
/** Floats of patch (or column) matrix per chunk of output positions: 16 MB. */
#define SCRATCH (1L << 22)

typedef struct {
  const float* p;
  long rs, cs; // element (i, j) is p[i * rs + j * cs]
} view;

// ---- GEMM: C[m, n] (+)= A[m, k] · B[k, n] ----

/** c[mr x nr] += a panel (kc x MR, k-major) times a B panel (kc x NR, k-major). */
typedef void (*kernel_fn)(long kc, const float* a, const float* b, float* c, long ldc, long mr, long nr);
typedef struct {
  kernel_fn run;
  long mr, nr;
  const char* name;
} micro_kernel;

/** B's rows k0..k0+kc, columns j0..j0+nc, as strips of nr columns, k-major, zero-padded. */
static void pack_b(view b, long k0, long kc, long j0, long nc, long NR, float* out) {
  for (long js = 0; js < nc; js += NR) {
    long nr = nc - js < NR ? nc - js : NR;
    float* o = out + js * kc;
    for (long k = 0; k < kc; k++, o += NR) {
      const float* src = b.p + (k0 + k) * b.rs + (j0 + js) * b.cs;
      long j = 0;
      if (b.cs == 1) {
        memcpy(o, src, (size_t)nr * sizeof(float));
        j = nr;
      } else {
        for (; j < nr; j++) o[j] = src[j * b.cs];
      }
      for (; j < NR; j++) o[j] = 0;
    }
  }
}

/** A's rows i0..i0+mc, columns k0..k0+kc, as strips of MR rows, k-major, zero-padded. */
static void pack_a(view a, long i0, long mc, long k0, long kc, long MR, float* out) {
  for (long is = 0; is < mc; is += MR) {
    long mr = mc - is < MR ? mc - is : MR;
    float* o = out + is * kc;
    const float* base = a.p + (i0 + is) * a.rs + k0 * a.cs;
    for (long k = 0; k < kc; k++, o += MR) {
      const float* src = base + k * a.cs;
      long r = 0;
      for (; r < mr; r++) o[r] = src[r * a.rs];
      for (; r < MR; r++) o[r] = 0;
    }
  }
}

/** c[r, j] += t[r, j] for the mr x nr corner of a tile whose rows are NR apart. */
static void add_tile(const float* t, long NR, float* c, long ldc, long mr, long nr) {
  for (long r = 0; r < mr; r++)
    for (long j = 0; j < nr; j++) c[r * ldc + j] += t[r * NR + j];
}

#define GENERIC_MR 6
#define GENERIC_NR 16
static void kernel_generic(long kc, const float* a, const float* b, float* c, long ldc, long mr, long nr) {
  float t[GENERIC_MR * GENERIC_NR] = {0};
  for (long k = 0; k < kc; k++, a += GENERIC_MR, b += GENERIC_NR)
    for (long r = 0; r < GENERIC_MR; r++) {
      float av = a[r];
      for (long j = 0; j < GENERIC_NR; j++) t[r * GENERIC_NR + j] += av * b[j];
    }
  add_tile(t, GENERIC_NR, c, ldc, mr, nr);
}

#ifdef MGPU_X86
// 6 x 16: 12 ymm accumulators, two loads of B and six broadcasts of A per k.
__attribute__((target("avx2,fma"))) static void kernel_avx2(long kc, const float* a, const float* b, float* c, long ldc, long mr, long nr) {
  __m256 acc[6][2];
  for (int r = 0; r < 6; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (long k = 0; k < kc; k++, a += 6, b += 16) {
    __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    for (int r = 0; r < 6; r++) {
      __m256 av = _mm256_broadcast_ss(a + r);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  if (mr == 6 && nr == 16) {
    for (int r = 0; r < 6; r++) {
      float* cr = c + r * ldc;
      _mm256_storeu_ps(cr, _mm256_add_ps(_mm256_loadu_ps(cr), acc[r][0]));
      _mm256_storeu_ps(cr + 8, _mm256_add_ps(_mm256_loadu_ps(cr + 8), acc[r][1]));
    }
    return;
  }
  float t[6 * 16];
  for (int r = 0; r < 6; r++) {
    _mm256_storeu_ps(t + r * 16, acc[r][0]);
    _mm256_storeu_ps(t + r * 16 + 8, acc[r][1]);
  }
  add_tile(t, 16, c, ldc, mr, nr);
}

// 12 x 32: 24 zmm accumulators, two loads of B and twelve broadcasts of A per k.
__attribute__((target("avx512f"))) static void kernel_avx512(long kc, const float* a, const float* b, float* c, long ldc, long mr, long nr) {
  __m512 acc[12][2];
  for (int r = 0; r < 12; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (long k = 0; k < kc; k++, a += 12, b += 32) {
    __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
    for (int r = 0; r < 12; r++) {
      __m512 av = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  if (mr == 12 && nr == 32) {
    for (int r = 0; r < 12; r++) {
      float* cr = c + r * ldc;
      _mm512_storeu_ps(cr, _mm512_add_ps(_mm512_loadu_ps(cr), acc[r][0]));
      _mm512_storeu_ps(cr + 16, _mm512_add_ps(_mm512_loadu_ps(cr + 16), acc[r][1]));
    }
    return;
  }
  float t[12 * 32];
  for (int r = 0; r < 12; r++) {
    _mm512_storeu_ps(t + r * 32, acc[r][0]);
    _mm512_storeu_ps(t + r * 32 + 16, acc[r][1]);
  }
  add_tile(t, 32, c, ldc, mr, nr);
}
#endif

/** The fastest micro-kernel the CPU runs; MGPU_CONV_ISA=avx2 or generic asks for a slower one (tests). */
static micro_kernel pick_kernel(void) {
  const char* want = getenv("MGPU_CONV_ISA");
  if (!want) want = "";
#ifdef MGPU_X86
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 && __builtin_cpu_supports("avx512f") && strcmp(want, "avx2") != 0 && strcmp(want, "generic") != 0)
    return (micro_kernel){kernel_avx512, 12, 32, "avx512"};
  if (avx2 && strcmp(want, "generic") != 0) return (micro_kernel){kernel_avx2, 6, 16, "avx2-fma"};
#endif
  return (micro_kernel){kernel_generic, GENERIC_MR, GENERIC_NR, "generic"};
}

static micro_kernel the_kernel(void) {
  static micro_kernel k = {NULL, 0, 0, NULL}; // the same for every thread: a property of the CPU
  if (!k.run) k = pick_kernel();
  return k;
}

/** The packed panels of A and B, one pair per thread, allocated on first use (false: out of memory). */
static _Thread_local float* packed_a;
static _Thread_local float* packed_b;
static bool pack_buffers(void) {
  if (!packed_a) packed_a = malloc(sizeof(float) * KC * MC);
  if (!packed_b) packed_b = malloc(sizeof(float) * KC * NC);
  return packed_a && packed_b;
}

/** C[m, n] = A·B, or C += A·B when accumulate; C row-major with row stride ldc. Needs pack_buffers(). */
static void gemm(long m, long n, long k, view a, view b, float* c, long ldc, bool accumulate) {
  if (!accumulate)
    for (long i = 0; i < m; i++) memset(c + i * ldc, 0, (size_t)n * sizeof(float));
  micro_kernel kern = the_kernel();
  const long MR = kern.mr, NR = kern.nr;
  float* pa = packed_a;
  float* pb = packed_b;
  for (long jc = 0; jc < n; jc += NC) {
    long nc = n - jc < NC ? n - jc : NC;
    for (long pc = 0; pc < k; pc += KC) {
      long kc = k - pc < KC ? k - pc : KC;
      pack_b(b, pc, kc, jc, nc, NR, pb);
      for (long ic = 0; ic < m; ic += MC) {
        long mc = m - ic < MC ? m - ic : MC;
        pack_a(a, ic, mc, pc, kc, MR, pa);
        for (long jr = 0; jr < nc; jr += NR)
          for (long ir = 0; ir < mc; ir += MR)
            kern.run(kc, pa + ir * kc, pb + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc, mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR);
      }
    }
  }
}

// ---- the convolution's geometry, im2col and col2im ----


/** A pointwise convolution whose patch matrix is x itself (1x1, stride 1, no padding). */
static bool pointwise(const geometry* g) {
  return g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 && g->top == 0 && g->left == 0 && g->OH == g->H && g->OW == g->W;
}

/** Output positions per chunk: the patch matrix of a chunk holds at most SCRATCH floats. */
static long chunk_rows(const geometry* g) {
  long rows = SCRATCH / (g->K > 0 ? g->K : 1);
  if (rows < MR_MAX) rows = MR_MAX;
  return rows < g->N ? rows : g->N;
}

/** Rows n0..n1 of the patch matrix: row n = (b, oh, ow), column (kh, kw, ci), 0 in the padding. */
static void im2col(const geometry* g, const float* x, long n0, long n1, float* out) {
  for (long n = n0; n < n1; n++, out += g->K) {
    long b = n / (g->OH * g->OW), rem = n % (g->OH * g->OW), oh = rem / g->OW, ow = rem % g->OW;
    float* o = out;
    for (long kh = 0; kh < g->KH; kh++) {
      long ih = oh * g->sh + kh - g->top;
      for (long kw = 0; kw < g->KW; kw++, o += g->C) {
        long iw = ow * g->sw + kw - g->left;
        if (ih < 0 || ih >= g->H || iw < 0 || iw >= g->W) memset(o, 0, (size_t)g->C * sizeof(float));
        else memcpy(o, x + ((b * g->H + ih) * g->W + iw) * g->C, (size_t)g->C * sizeof(float));
      }
    }
  }
}

/** Adds rows n0..n1 of a column matrix (laid out as the patch matrix) into dx, dropping the padding. */
static void col2im(const geometry* g, const float* cols, long n0, long n1, float* dx) {
  for (long n = n0; n < n1; n++, cols += g->K) {
    long b = n / (g->OH * g->OW), rem = n % (g->OH * g->OW), oh = rem / g->OW, ow = rem % g->OW;
    const float* s = cols;
    for (long kh = 0; kh < g->KH; kh++) {
      long ih = oh * g->sh + kh - g->top;
      for (long kw = 0; kw < g->KW; kw++, s += g->C) {
        long iw = ow * g->sw + kw - g->left;
        if (ih < 0 || ih >= g->H || iw < 0 || iw >= g->W) continue;
        float* d = dx + ((b * g->H + ih) * g->W + iw) * g->C;
        for (long ci = 0; ci < g->C; ci++) d[ci] += s[ci];
      }
    }
  }
}

/** dy's rows for output positions n0..n1, one row of CO each: dy itself when it is compact, else copied into out. */
static const float* dy_rows(const geometry* g, const float* dy, long n0, long n1, float* out) {
  if (g->dyH == g->OH && g->dyW == g->OW) return dy + n0 * g->CO;
  for (long n = n0; n < n1; n++) {
    long b = n / (g->OH * g->OW), rem = n % (g->OH * g->OW), oh = rem / g->OW, ow = rem % g->OW;
    memcpy(out + (n - n0) * g->CO, dy + ((b * g->dyH + oh) * g->dyW + ow) * g->CO, (size_t)g->CO * sizeof(float));
  }
  return out;
}

/** The per-thread scratch of patch (or column) rows and of copied dy rows, grown on demand. */
static _Thread_local float* scratch;
static _Thread_local size_t scratch_floats;
static float* scratch_for(size_t floats) {
  if (floats <= scratch_floats) return scratch;
  float* p = realloc(scratch, floats * sizeof(float));
  if (!p) return NULL;
  scratch = p;
  scratch_floats = floats;
  return p;
}

// ---- the three operations ----

static void conv_forward(const geometry* g, const float* x, const float* w, const float* bias, float* out, int act, float* patches) {
  view wv = {w, g->CO, 1};
  long rows = chunk_rows(g);
  for (long n0 = 0; n0 < g->N; n0 += rows) {
    long n1 = n0 + rows < g->N ? n0 + rows : g->N;
    view av = {x + n0 * g->C, g->C, 1};
    if (!pointwise(g)) {
      im2col(g, x, n0, n1, patches);
      av = (view){patches, g->K, 1};
    }
    float* o = out + n0 * g->CO;
    gemm(n1 - n0, g->CO, g->K, av, wv, o, g->CO, false);
    if (!bias && act == 0) continue;
    for (long i = 0; i < (n1 - n0) * g->CO; i++) {
      float v = o[i] + (bias ? bias[i % g->CO] : 0.0f);
      if (act >= 1 && v < 0) v = 0;
      if (act == 2 && v > 6) v = 6;
      o[i] = v;
    }
  }
}

static void conv_backprop_input(const geometry* g, const float* dy, const float* w, float* dx, float* cols, float* dyc) {
  memset(dx, 0, (size_t)(g->B * g->H * g->W * g->C) * sizeof(float));
  view wt = {w, 1, g->CO}; // Wᵀ: element (co, k) is w[k·CO + co]
  long rows = chunk_rows(g);
  for (long n0 = 0; n0 < g->N; n0 += rows) {
    long n1 = n0 + rows < g->N ? n0 + rows : g->N;
    view dv = {dy_rows(g, dy, n0, n1, dyc), g->CO, 1};
    if (pointwise(g)) {
      gemm(n1 - n0, g->K, g->CO, dv, wt, dx + n0 * g->C, g->C, false);
    } else {
      gemm(n1 - n0, g->K, g->CO, dv, wt, cols, g->K, false);
      col2im(g, cols, n0, n1, dx);
    }
  }
}

static void conv_backprop_filter(const geometry* g, const float* x, const float* dy, float* dw, float* patches, float* dyc) {
  memset(dw, 0, (size_t)(g->K * g->CO) * sizeof(float));
  long rows = chunk_rows(g);
  for (long n0 = 0; n0 < g->N; n0 += rows) {
    long n1 = n0 + rows < g->N ? n0 + rows : g->N;
    view pt = {x + n0 * g->C, 1, g->C}; // the patch matrix transposed: element (k, n) is patches[n·K + k]
    if (!pointwise(g)) {
      im2col(g, x, n0, n1, patches);
      pt = (view){patches, 1, g->K};
    }
    view dv = {dy_rows(g, dy, n0, n1, dyc), g->CO, 1};
    gemm(g->K, g->CO, n1 - n0, pt, dv, dw, g->CO, true);
  }
}

// ---- depthwise (each channel its own filter; M outputs per channel, CO = C·M) ----

/** dW[kh, kw, c·M + m] = Σ x[b, ih, iw, c] · dy[b, oh, ow, c·M + m], summed in float64 (acc: KH·KW·CO). */
static void depthwise_backprop_filter(const geometry* g, long M, const float* x, const float* dy, float* dw, double* acc) {
  memset(acc, 0, (size_t)(g->KH * g->KW * g->CO) * sizeof(double));
  for (long b = 0; b < g->B; b++)
    for (long oh = 0; oh < g->OH; oh++)
      for (long ow = 0; ow < g->OW; ow++) {
        const float* d = dy + ((b * g->dyH + oh) * g->dyW + ow) * g->CO;
        for (long kh = 0; kh < g->KH; kh++) {
          long ih = oh * g->sh + kh - g->top;
          if (ih < 0 || ih >= g->H) continue;
          for (long kw = 0; kw < g->KW; kw++) {
            long iw = ow * g->sw + kw - g->left;
            if (iw < 0 || iw >= g->W) continue;
            const float* xr = x + ((b * g->H + ih) * g->W + iw) * g->C;
            double* a = acc + (kh * g->KW + kw) * g->CO;
            if (M == 1)
              for (long c = 0; c < g->C; c++) a[c] += (double)xr[c] * d[c];
            else
              for (long c = 0; c < g->C; c++)
                for (long m = 0; m < M; m++) a[c * M + m] += (double)xr[c] * d[c * M + m];
          }
        }
      }
  for (long i = 0; i < g->KH * g->KW * g->CO; i++) dw[i] = (float)acc[i];
}

/** dx[b, ih, iw, c] = Σ W[kh, kw, c·M + m] · dy[b, oh, ow, c·M + m], scattered from each output position. */
static void depthwise_backprop_input(const geometry* g, long M, const float* dy, const float* w, float* dx) {
  memset(dx, 0, (size_t)(g->B * g->H * g->W * g->C) * sizeof(float));
  for (long b = 0; b < g->B; b++)
    for (long oh = 0; oh < g->OH; oh++)
      for (long ow = 0; ow < g->OW; ow++) {
        const float* d = dy + ((b * g->dyH + oh) * g->dyW + ow) * g->CO;
        for (long kh = 0; kh < g->KH; kh++) {
          long ih = oh * g->sh + kh - g->top;
          if (ih < 0 || ih >= g->H) continue;
          for (long kw = 0; kw < g->KW; kw++) {
            long iw = ow * g->sw + kw - g->left;
            if (iw < 0 || iw >= g->W) continue;
            float* xr = dx + ((b * g->H + ih) * g->W + iw) * g->C;
            const float* wr = w + (kh * g->KW + kw) * g->CO;
            if (M == 1)
              for (long c = 0; c < g->C; c++) xr[c] += wr[c] * d[c];
            else
              for (long c = 0; c < g->C; c++)
                for (long m = 0; m < M; m++) xr[c] += wr[c * M + m] * d[c * M + m];
          }
        }
      }
}

// ---- N-API ----

static bool f32_arg(napi_env env, const char* fn, napi_value v, const char* name, float** data, size_t* length) {
  bool is = false;
  napi_typedarray_type type;
  napi_is_typedarray(env, v, &is);
  if (is && napi_get_typedarray_info(env, v, &type, length, (void**)data, NULL, NULL) == napi_ok && type == napi_float32_array) return true;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s must be a Float32Array", fn, name);
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
  return false;
}

static bool too_short(napi_env env, const char* fn, const char* name, size_t have, long want) {
  if (want >= 0 && have >= (size_t)want) return false;
  char msg[200];
  snprintf(msg, sizeof msg, "%s: %s holds %zu floats, the geometry needs %ld", fn, name, have, want);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return true;
}

/** Reads geom (15 int32s, all >= 0 but the padding, strides >= 1). */
static bool geom_arg(napi_env env, const char* fn, napi_value v, geometry* g) {
  bool is = false;
  napi_typedarray_type type;
  size_t length = 0;
  int32_t* d = NULL;
  napi_is_typedarray(env, v, &is);
  if (!is || napi_get_typedarray_info(env, v, &type, &length, (void**)&d, NULL, NULL) != napi_ok || type != napi_int32_array || length != 15) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: geom must be an Int32Array of 15 sizes", fn);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return false;
  }
  *g = (geometry){d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], 0, 0};
  bool ok = g->sh >= 1 && g->sw >= 1 && g->dyH >= g->OH && g->dyW >= g->OW;
  for (int i = 0; i < 9; i++) ok = ok && d[i] >= 0;
  if (!ok) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: geom holds a negative size, a stride below 1 or a dy smaller than the output", fn);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return false;
  }
  g->K = g->KH * g->KW * g->C;
  g->N = g->B * g->OH * g->OW;
  return true;
}

static bool get_args(napi_env env, napi_callback_info info, size_t want, napi_value* argv, const char* usage) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc >= want) return true;
  napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
  return false;
}

/** The scratch for a call: patch rows (when not pointwise) and dy rows (when dy is not compact). */
static bool scratch_parts(napi_env env, const geometry* g, bool need_dy, float** patches, float** dyc) {
  long rows = chunk_rows(g);
  size_t p = pointwise(g) ? 0 : (size_t)(rows * g->K);
  size_t d = need_dy && (g->dyH != g->OH || g->dyW != g->OW) ? (size_t)(rows * g->CO) : 0;
  float* s = scratch_for(p + d + 1);
  if (!s || !pack_buffers()) {
    napi_throw_error(env, "ERR_MEMORY", "mgpu_conv_kernels: out of memory for the patch matrix");
    return false;
  }
  *patches = s;
  *dyc = s + p;
  return true;
}

static napi_value Conv2d(napi_env env, napi_callback_info info) {
  const char* fn = "conv2d";
  napi_value argv[6];
  if (!get_args(env, info, 6, argv, "conv2d(x, w, bias | null, out, geom, act)")) return NULL;
  float *x, *w, *bias = NULL, *out, *patches, *dyc;
  size_t nx, nw, nb = 0, no;
  geometry g;
  napi_valuetype bt;
  int32_t act = 0;
  napi_typeof(env, argv[2], &bt);
  if (!f32_arg(env, fn, argv[0], "x", &x, &nx) || !f32_arg(env, fn, argv[1], "w", &w, &nw)) return NULL;
  if (bt != napi_null && !f32_arg(env, fn, argv[2], "bias", &bias, &nb)) return NULL;
  if (!f32_arg(env, fn, argv[3], "out", &out, &no) || !geom_arg(env, fn, argv[4], &g)) return NULL;
  if (napi_get_value_int32(env, argv[5], &act) != napi_ok || act < 0 || act > 2) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "conv2d: act must be 0 (linear), 1 (relu) or 2 (relu6)");
    return NULL;
  }
  if (too_short(env, fn, "x", nx, g.B * g.H * g.W * g.C) || too_short(env, fn, "w", nw, g.K * g.CO) || too_short(env, fn, "out", no, g.N * g.CO)) return NULL;
  if (bias && too_short(env, fn, "bias", nb, g.CO)) return NULL;
  if (onednn_forward(&g, x, w, bias, out, act)) return NULL;
  if (!scratch_parts(env, &g, false, &patches, &dyc)) return NULL;
  conv_forward(&g, x, w, bias, out, act, patches);
  return NULL;
}

static napi_value BackpropInput(napi_env env, napi_callback_info info) {
  const char* fn = "backpropInput";
  napi_value argv[4];
  if (!get_args(env, info, 4, argv, "backpropInput(dy, w, dx, geom)")) return NULL;
  float *dy, *w, *dx, *cols, *dyc;
  size_t ndy, nw, ndx;
  geometry g;
  if (!f32_arg(env, fn, argv[0], "dy", &dy, &ndy) || !f32_arg(env, fn, argv[1], "w", &w, &nw) || !f32_arg(env, fn, argv[2], "dx", &dx, &ndx)) return NULL;
  if (!geom_arg(env, fn, argv[3], &g)) return NULL;
  if (too_short(env, fn, "dy", ndy, g.B * g.dyH * g.dyW * g.CO) || too_short(env, fn, "w", nw, g.K * g.CO) || too_short(env, fn, "dx", ndx, g.B * g.H * g.W * g.C)) return NULL;
  if (onednn_backprop_input(&g, dy, w, dx)) return NULL;
  if (!scratch_parts(env, &g, true, &cols, &dyc)) return NULL;
  conv_backprop_input(&g, dy, w, dx, cols, dyc);
  return NULL;
}

static napi_value BackpropFilter(napi_env env, napi_callback_info info) {
  const char* fn = "backpropFilter";
  napi_value argv[4];
  if (!get_args(env, info, 4, argv, "backpropFilter(x, dy, dw, geom)")) return NULL;
  float *x, *dy, *dw, *patches, *dyc;
  size_t nx, ndy, ndw;
  geometry g;
  if (!f32_arg(env, fn, argv[0], "x", &x, &nx) || !f32_arg(env, fn, argv[1], "dy", &dy, &ndy) || !f32_arg(env, fn, argv[2], "dw", &dw, &ndw)) return NULL;
  if (!geom_arg(env, fn, argv[3], &g)) return NULL;
  if (too_short(env, fn, "x", nx, g.B * g.H * g.W * g.C) || too_short(env, fn, "dy", ndy, g.B * g.dyH * g.dyW * g.CO) || too_short(env, fn, "dw", ndw, g.K * g.CO)) return NULL;
  if (onednn_backprop_filter(&g, x, dy, dw)) return NULL;
  if (!scratch_parts(env, &g, true, &patches, &dyc)) return NULL;
  conv_backprop_filter(&g, x, dy, dw, patches, dyc);
  return NULL;
}

/** The channel multiplier of a depthwise geometry: CO = C·M, M >= 1 (0 with an exception thrown). */
static long multiplier(napi_env env, const char* fn, const geometry* g) {
  if (g->C > 0 && g->CO % g->C == 0 && g->CO >= g->C) return g->CO / g->C;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: the output channels (%ld) are not a multiple of the input channels (%ld)", fn, g->CO, g->C);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
  return 0;
}

static napi_value DepthwiseBackpropFilter(napi_env env, napi_callback_info info) {
  const char* fn = "depthwiseBackpropFilter";
  napi_value argv[4];
  if (!get_args(env, info, 4, argv, "depthwiseBackpropFilter(x, dy, dw, geom)")) return NULL;
  float *x, *dy, *dw;
  size_t nx, ndy, ndw;
  geometry g;
  if (!f32_arg(env, fn, argv[0], "x", &x, &nx) || !f32_arg(env, fn, argv[1], "dy", &dy, &ndy) || !f32_arg(env, fn, argv[2], "dw", &dw, &ndw)) return NULL;
  if (!geom_arg(env, fn, argv[3], &g)) return NULL;
  long M = multiplier(env, fn, &g);
  if (!M) return NULL;
  long taps = g.KH * g.KW * g.CO;
  if (too_short(env, fn, "x", nx, g.B * g.H * g.W * g.C) || too_short(env, fn, "dy", ndy, g.B * g.dyH * g.dyW * g.CO) || too_short(env, fn, "dw", ndw, taps)) return NULL;
  double* acc = malloc((size_t)(taps > 0 ? taps : 1) * sizeof(double));
  if (!acc) {
    napi_throw_error(env, "ERR_MEMORY", "mgpu_conv_kernels: out of memory for the filter sums");
    return NULL;
  }
  depthwise_backprop_filter(&g, M, x, dy, dw, acc);
  free(acc);
  return NULL;
}

static napi_value DepthwiseBackpropInput(napi_env env, napi_callback_info info) {
  const char* fn = "depthwiseBackpropInput";
  napi_value argv[4];
  if (!get_args(env, info, 4, argv, "depthwiseBackpropInput(dy, w, dx, geom)")) return NULL;
  float *dy, *w, *dx;
  size_t ndy, nw, ndx;
  geometry g;
  if (!f32_arg(env, fn, argv[0], "dy", &dy, &ndy) || !f32_arg(env, fn, argv[1], "w", &w, &nw) || !f32_arg(env, fn, argv[2], "dx", &dx, &ndx)) return NULL;
  if (!geom_arg(env, fn, argv[3], &g)) return NULL;
  long M = multiplier(env, fn, &g);
  if (!M) return NULL;
  if (too_short(env, fn, "dy", ndy, g.B * g.dyH * g.dyW * g.CO) || too_short(env, fn, "w", nw, g.KH * g.KW * g.CO) || too_short(env, fn, "dx", ndx, g.B * g.H * g.W * g.C)) return NULL;
  depthwise_backprop_input(&g, M, dy, w, dx);
  return NULL;
}

static napi_value Isa(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value s;
  napi_create_string_utf8(env, the_kernel().name, NAPI_AUTO_LENGTH, &s);
  return s;
}

static napi_value OnednnVersion(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value s;
  const char* version = onednn_version();
  if (!version) napi_get_null(env, &s);
  else napi_create_string_utf8(env, version, NAPI_AUTO_LENGTH, &s);
  return s;
}

static napi_value UseOnednn(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  bool on = false;
  if (!get_args(env, info, 1, argv, "useOnednn(on)")) return NULL;
  if (napi_get_value_bool(env, argv[0], &on) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "useOnednn: on must be a boolean");
    return NULL;
  }
  onednn_use(on);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"conv2d", NULL, Conv2d, NULL, NULL, NULL, napi_default, NULL},
      {"backpropInput", NULL, BackpropInput, NULL, NULL, NULL, napi_default, NULL},
      {"backpropFilter", NULL, BackpropFilter, NULL, NULL, NULL, napi_default, NULL},
      {"depthwiseBackpropFilter", NULL, DepthwiseBackpropFilter, NULL, NULL, NULL, napi_default, NULL},
      {"depthwiseBackpropInput", NULL, DepthwiseBackpropInput, NULL, NULL, NULL, napi_default, NULL},
      {"isa", NULL, Isa, NULL, NULL, NULL, napi_default, NULL},
      {"onednnVersion", NULL, OnednnVersion, NULL, NULL, NULL, napi_default, NULL},
      {"useOnednn", NULL, UseOnednn, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormTrain", NULL, MgpuBatchNormTrain, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormTrainGrad", NULL, MgpuBatchNormTrainGrad, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormSums", NULL, MgpuBatchNormSums, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormSquaredDeviations", NULL, MgpuBatchNormSquaredDeviations, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormApply", NULL, MgpuBatchNormApply, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormGradSums", NULL, MgpuBatchNormGradSums, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormGradParams", NULL, MgpuBatchNormGradParams, NULL, NULL, NULL, napi_default, NULL},
      {"batchNormGradApply", NULL, MgpuBatchNormGradApply, NULL, NULL, NULL, napi_default, NULL},
      {"fmaPeak", NULL, MgpuFmaPeak, NULL, NULL, NULL, napi_default, NULL},
      {"reluMax", NULL, MgpuReluMax, NULL, NULL, NULL, napi_default, NULL},
      {"relu6Grad", NULL, MgpuRelu6Grad, NULL, NULL, NULL, napi_default, NULL},
      {"reluMaxGrad", NULL, MgpuReluMaxGrad, NULL, NULL, NULL, napi_default, NULL},
      {"binary", NULL, MgpuBinary, NULL, NULL, NULL, napi_default, NULL},
      {"select", NULL, MgpuSelect, NULL, NULL, NULL, napi_default, NULL},
      {"leakyRelu", NULL, MgpuLeakyRelu, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
