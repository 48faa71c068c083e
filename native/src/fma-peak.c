// The CPU's arithmetic peak on one core, measured: a loop of independent fused multiply-add
// chains at the widest vector width the CPU runs (AVX-512: 16 chains of 16 floats; AVX2+FMA: 10
// chains of 8, as many as the 16 ymm registers hold beside the two operands; else scalar C), so
// that every FMA unit is busy every cycle (4-cycle latency x 2 units needs 8 chains in flight).
// It is what `mgpu-train benchmark` divides the achieved FLOP/s by for model FLOPs utilisation.
//
//   fmaPeak(seconds) -> { gflops, isa }   single-precision GFLOP/s of this thread (2 per FMA)
//
// Registered by conv-kernels.c (this addon has the run-time ISA choice already).
#define NAPI_VERSION 8
#include "fma-peak.h"

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MGPU_X86 1
#endif

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/** The chains start near 1 and shrink by a factor just under 1 per step: no overflow, no denormals within any run length. */
#define MUL 0.99999994f
#define ADD 1e-7f

#ifdef MGPU_X86
__attribute__((target("avx512f"))) static float loop_avx512(long iters) {
  const __m512 m = _mm512_set1_ps(MUL), b = _mm512_set1_ps(ADD);
  __m512 a0 = _mm512_set1_ps(1.0f), a1 = _mm512_set1_ps(1.01f), a2 = _mm512_set1_ps(1.02f), a3 = _mm512_set1_ps(1.03f);
  __m512 a4 = _mm512_set1_ps(1.04f), a5 = _mm512_set1_ps(1.05f), a6 = _mm512_set1_ps(1.06f), a7 = _mm512_set1_ps(1.07f);
  __m512 a8 = _mm512_set1_ps(1.08f), a9 = _mm512_set1_ps(1.09f), a10 = _mm512_set1_ps(1.10f), a11 = _mm512_set1_ps(1.11f);
  __m512 a12 = _mm512_set1_ps(1.12f), a13 = _mm512_set1_ps(1.13f), a14 = _mm512_set1_ps(1.14f), a15 = _mm512_set1_ps(1.15f);
  for (long i = 0; i < iters; i++) {
    a0 = _mm512_fmadd_ps(a0, m, b), a1 = _mm512_fmadd_ps(a1, m, b), a2 = _mm512_fmadd_ps(a2, m, b), a3 = _mm512_fmadd_ps(a3, m, b);
    a4 = _mm512_fmadd_ps(a4, m, b), a5 = _mm512_fmadd_ps(a5, m, b), a6 = _mm512_fmadd_ps(a6, m, b), a7 = _mm512_fmadd_ps(a7, m, b);
    a8 = _mm512_fmadd_ps(a8, m, b), a9 = _mm512_fmadd_ps(a9, m, b), a10 = _mm512_fmadd_ps(a10, m, b), a11 = _mm512_fmadd_ps(a11, m, b);
    a12 = _mm512_fmadd_ps(a12, m, b), a13 = _mm512_fmadd_ps(a13, m, b), a14 = _mm512_fmadd_ps(a14, m, b), a15 = _mm512_fmadd_ps(a15, m, b);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)), _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)), _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static float loop_avx2(long iters) {
  const __m256 m = _mm256_set1_ps(MUL), b = _mm256_set1_ps(ADD);
  __m256 a0 = _mm256_set1_ps(1.0f), a1 = _mm256_set1_ps(1.01f), a2 = _mm256_set1_ps(1.02f), a3 = _mm256_set1_ps(1.03f);
  __m256 a4 = _mm256_set1_ps(1.04f), a5 = _mm256_set1_ps(1.05f), a6 = _mm256_set1_ps(1.06f), a7 = _mm256_set1_ps(1.07f);
  __m256 a8 = _mm256_set1_ps(1.08f), a9 = _mm256_set1_ps(1.09f);
  for (long i = 0; i < iters; i++) {
    a0 = _mm256_fmadd_ps(a0, m, b), a1 = _mm256_fmadd_ps(a1, m, b), a2 = _mm256_fmadd_ps(a2, m, b), a3 = _mm256_fmadd_ps(a3, m, b);
    a4 = _mm256_fmadd_ps(a4, m, b), a5 = _mm256_fmadd_ps(a5, m, b), a6 = _mm256_fmadd_ps(a6, m, b), a7 = _mm256_fmadd_ps(a7, m, b);
    a8 = _mm256_fmadd_ps(a8, m, b), a9 = _mm256_fmadd_ps(a9, m, b);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)), _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(a8, a9));
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}
#endif

/** Scalar chains: what a CPU without the vector extensions (or another architecture) does per cycle, roughly. */
static float loop_scalar(long iters) {
  volatile float sink;
  float a[8] = {1.0f, 1.01f, 1.02f, 1.03f, 1.04f, 1.05f, 1.06f, 1.07f};
  for (long i = 0; i < iters; i++)
    for (int j = 0; j < 8; j++) a[j] = a[j] * MUL + ADD;
  sink = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
  return sink;
}

typedef struct {
  float (*run)(long);
  double flops_per_iter;
  const char* isa;
} fma_loop;

static fma_loop pick_loop(void) {
#ifdef MGPU_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return (fma_loop){loop_avx512, 16.0 * 16 * 2, "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return (fma_loop){loop_avx2, 10.0 * 8 * 2, "avx2-fma"};
#endif
  return (fma_loop){loop_scalar, 8.0 * 2, "scalar"};
}

/** The best of several timed runs of about `seconds` / 4 each (a run the OS interrupted is slower, never faster). */
static double measure(fma_loop l, double seconds) {
  long iters = 1 << 14;
  double best = 0, spent = 0;
  volatile float sink = 0;
  while (spent < seconds) {
    double t0 = now_s();
    sink += l.run(iters);
    double dt = now_s() - t0;
    spent += dt;
    if (dt < seconds / 8) {
      iters *= 2; // too short to time well: longer, and not counted
      continue;
    }
    double rate = (double)iters * l.flops_per_iter / dt;
    if (rate > best) best = rate;
  }
  (void)sink;
  return best;
}

napi_value MgpuFmaPeak(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double seconds = 0.2;
  if (argc >= 1) napi_get_value_double(env, argv[0], &seconds);
  if (!(seconds > 0 && seconds <= 10)) seconds = 0.2;
  fma_loop l = pick_loop();
  double flops = measure(l, seconds);
  napi_value out, gflops, isa;
  napi_create_object(env, &out);
  napi_create_double(env, flops / 1e9, &gflops);
  napi_create_string_utf8(env, l.isa, NAPI_AUTO_LENGTH, &isa);
  napi_set_named_property(env, out, "gflops", gflops);
  napi_set_named_property(env, out, "isa", isa);
  return out;
}
