// The convolution and its two gradients on oneDNN (the library PyTorch's CPU convolutions run
// on), for the wasm kernels' tensors in place: x, dy and the outputs are NHWC and the filter
// [KH, KW, C, CO] (oneDNN's nhwc and hwio), passed as the wasm heap's own memory. oneDNN picks
// its implementation for the machine's CPU at run time (a JIT for AVX-512, AVX2, ...). The
// filter goes through oneDNN's preferred blocked layout: reordered into it before the forward
// and the input gradient, and the filter gradient reordered out of it, through one scratch
// buffer that every call shares (the largest filter's size: 9.4 MB on resnet18-cifar). Measured on resnet18-cifar's
// layers it takes about two thirds of the time of the addon's own im2col + GEMM
// (docs/performance.md); the choice is made once per process, never per call, so that a
// restarted or resumed run computes the same bits.
//
// One cache entry per operation and geometry holds the primitives and the memory objects (their
// handles set to the call's arrays and the scratch). The functions are called
// from the JavaScript thread only (the wasm kernels), so the cache has no lock. oneDNN runs on
// one OpenMP thread: a worker is one process per core (or GPU), as the addon's own kernels are.
#include "onednn-conv.h"

#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void omp_set_num_threads(int); // libgomp's, which libdnnl links: oneDNN's OpenMP runtime

typedef enum { FORWARD, BACKPROP_INPUT, BACKPROP_FILTER } operation;

typedef struct {
  // the key
  operation op;
  geometry g;
  int bias, act;
  // the value
  bool declined; // oneDNN does not compute this one: the own kernel does
  dnnl_primitive_t conv;
  dnnl_primitive_t filter_reorder; // hwio -> the convolution's layout, or its gradient's back; NULL: the same layout
  dnnl_memory_t a, b, c, bias_mem; // the call's arrays: (x, out), (dy, dx), (x, dy) and the hwio filter in c
  dnnl_memory_t blocked;           // the filter (or its gradient) in the convolution's layout, on the scratch
  size_t blocked_bytes;
} entry;

#define CACHE 256
static entry cache[CACHE];
static int cached, next_victim;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int state;            // 0 not started, 1 started, -1 failed to start
static bool in_use = true;  // onednn_use(false): the own kernels compute everything

static bool started(void) {
  if (state == 0) {
    state = dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success && dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) == dnnl_success ? 1 : -1;
    if (state == 1) omp_set_num_threads(1);
  }
  return state == 1;
}

void onednn_use(bool on) { in_use = on; }

const char* onednn_version(void) {
  static char name[48];
  if (!started()) return NULL;
  const dnnl_version_t* v = dnnl_version();
  snprintf(name, sizeof name, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
  return name;
}

static bool same_key(const entry* e, operation op, const geometry* g, int bias, int act) {
  return e->op == op && e->bias == bias && e->act == act && memcmp(&e->g, g, sizeof *g) == 0;
}

static void release(entry* e) {
  dnnl_primitive_t prims[] = {e->conv, e->filter_reorder};
  dnnl_memory_t mems[] = {e->a, e->b, e->c, e->bias_mem, e->blocked};
  for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
    if (prims[i]) dnnl_primitive_destroy(prims[i]);
  for (size_t i = 0; i < sizeof mems / sizeof *mems; i++)
    if (mems[i]) dnnl_memory_destroy(mems[i]);
  memset(e, 0, sizeof *e);
}

static dnnl_status_t tagged(dnnl_memory_desc_t* md, long d0, long d1, long d2, long d3, dnnl_format_tag_t tag) {
  dnnl_dims_t dims = {d0, d1, d2, d3};
  return dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, tag);
}

static dnnl_memory_t user_memory(const dnnl_memory_desc_t* md, bool* ok) {
  dnnl_memory_t m = NULL;
  if (*ok) *ok = dnnl_memory_create(&m, md, engine, DNNL_MEMORY_NONE) == dnnl_success;
  return m;
}

/** The scratch that holds a blocked filter during one call, grown on demand. */
static void* scratch;
static size_t scratch_bytes;
static void* scratch_for(size_t bytes) {
  if (bytes <= scratch_bytes) return scratch;
  void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) return NULL;
  free(scratch);
  scratch_bytes = bytes;
  return scratch = p;
}

/** The reorder between hwio and the convolution's layout of the filter (into it, or out of it for the gradient); none when they are the same; false on an error. */
static bool filter_layout(entry* e, const dnnl_memory_desc_t* conv_md, const dnnl_memory_desc_t* hwio, bool into_conv) {
  if (dnnl_memory_desc_equal(conv_md, hwio)) return true;
  e->blocked_bytes = dnnl_memory_desc_get_size(conv_md);
  if (dnnl_memory_create(&e->blocked, conv_md, engine, DNNL_MEMORY_NONE) != dnnl_success) return false;
  dnnl_primitive_desc_t rpd;
  const dnnl_memory_desc_t* from = into_conv ? hwio : conv_md;
  const dnnl_memory_desc_t* to = into_conv ? conv_md : hwio;
  if (dnnl_reorder_primitive_desc_create(&rpd, from, engine, to, engine, NULL) != dnnl_success) return false;
  bool ok = dnnl_primitive_create(&e->filter_reorder, rpd) == dnnl_success;
  dnnl_primitive_desc_destroy(rpd);
  return ok;
}

/** Whether oneDNN's choice is one of its optimised implementations (a reference one is slower than the own kernel). */
static bool optimised(const_dnnl_primitive_desc_t pd) {
  const char* impl = NULL;
  return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl && strncmp(impl, "ref", 3) != 0;
}

/** The padding after the input's last row (or column) that gives `out` rows, or -1 where none does. */
static long after_padding(long in, long k, long stride, long before, long out) {
  long pad = (out - 1) * stride + k - in - before;
  if (pad < 0) pad = 0;
  return in + before + pad >= k && (in + before + pad - k) / stride + 1 == out ? pad : -1;
}

/** Builds e's primitives; false: oneDNN declines it (the entry is then marked declined). */
static bool build(entry* e) {
  const geometry* g = &e->g;
  // The padding after the last row and column: what the output's size needs, 0 where the stride
  // leaves the last input rows unread (a 1x1 stride-2 convolution of an even size); oneDNN
  // derives the output's size from it, rounding down, and must arrive at OH x OW.
  long bottom = after_padding(g->H, g->KH, g->sh, g->top, g->OH), right = after_padding(g->W, g->KW, g->sw, g->left, g->OW);
  if (bottom < 0 || right < 0 || g->dyH != g->OH || g->dyW != g->OW || g->N == 0 || g->K == 0 || g->CO == 0) return false;
  dnnl_memory_desc_t src, dst, any_w, hwio, bias;
  dnnl_dims_t strides = {g->sh, g->sw}, pad_l = {g->top, g->left}, pad_r = {bottom, right}, bias_dims = {g->CO};
  bool ok = tagged(&src, g->B, g->C, g->H, g->W, dnnl_nhwc) == dnnl_success && tagged(&dst, g->B, g->CO, g->OH, g->OW, dnnl_nhwc) == dnnl_success &&
            tagged(&any_w, g->CO, g->C, g->KH, g->KW, dnnl_format_tag_any) == dnnl_success &&
            tagged(&hwio, g->CO, g->C, g->KH, g->KW, dnnl_hwio) == dnnl_success &&
            dnnl_memory_desc_init_by_tag(&bias, 1, bias_dims, dnnl_f32, dnnl_x) == dnnl_success;
  if (!ok) return false;

  // The forward's descriptor: the primitive of FORWARD, the hint of the two gradients.
  dnnl_convolution_desc_t fd;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t post = NULL;
  dnnl_primitive_desc_t fpd = NULL, pd = NULL;
  ok = dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &src, &any_w, e->bias ? &bias : NULL, &dst, strides, pad_l, pad_r) ==
       dnnl_success;
  if (ok && e->act) {
    ok = dnnl_primitive_attr_create(&attr) == dnnl_success && dnnl_post_ops_create(&post) == dnnl_success &&
         dnnl_post_ops_append_eltwise(post, 1.0f, e->act == 1 ? dnnl_eltwise_relu : dnnl_eltwise_clip, 0.0f, e->act == 1 ? 0.0f : 6.0f) == dnnl_success &&
         dnnl_primitive_attr_set_post_ops(attr, post) == dnnl_success;
  }
  ok = ok && dnnl_primitive_desc_create(&fpd, &fd, attr, engine, NULL) == dnnl_success;
  if (post) dnnl_post_ops_destroy(post);
  if (attr) dnnl_primitive_attr_destroy(attr);

  if (ok && e->op == FORWARD) {
    pd = fpd, fpd = NULL;
  } else if (ok && e->op == BACKPROP_INPUT) {
    dnnl_convolution_desc_t bd;
    ok = dnnl_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &src, &any_w, &dst, strides, pad_l, pad_r) == dnnl_success &&
         dnnl_primitive_desc_create(&pd, &bd, NULL, engine, fpd) == dnnl_success;
  } else if (ok) {
    dnnl_convolution_desc_t wd;
    ok = dnnl_convolution_backward_weights_desc_init(&wd, dnnl_convolution_direct, &src, &any_w, NULL, &dst, strides, pad_l, pad_r) == dnnl_success &&
         dnnl_primitive_desc_create(&pd, &wd, NULL, engine, fpd) == dnnl_success;
  }
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  ok = ok && optimised(pd);
  if (ok) {
    const dnnl_memory_desc_t* conv_w = dnnl_primitive_desc_query_md(pd, e->op == BACKPROP_FILTER ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    ok = dnnl_primitive_create(&e->conv, pd) == dnnl_success && filter_layout(e, conv_w, &hwio, e->op != BACKPROP_FILTER);
    e->a = user_memory(e->op == BACKPROP_INPUT ? &dst : &src, &ok); // x, dy, x
    e->b = user_memory(e->op == FORWARD ? &dst : e->op == BACKPROP_INPUT ? &src : &dst, &ok); // out, dx, dy
    e->c = user_memory(&hwio, &ok);
    if (e->bias) e->bias_mem = user_memory(&bias, &ok);
  }
  if (pd) dnnl_primitive_desc_destroy(pd);
  return ok;
}

/** The cache entry of this call, built on first use; NULL when oneDNN declines it. */
static entry* lookup(operation op, const geometry* g, int bias, int act) {
  if (!in_use || !started()) return NULL;
  for (int i = 0; i < cached; i++)
    if (same_key(&cache[i], op, g, bias, act)) return cache[i].declined ? NULL : &cache[i];
  entry* e;
  if (cached < CACHE) {
    e = &cache[cached++];
  } else {
    e = &cache[next_victim];
    next_victim = (next_victim + 1) % CACHE;
    release(e);
  }
  *e = (entry){.op = op, .g = *g, .bias = bias, .act = act};
  if (!build(e)) {
    release(e);
    *e = (entry){.op = op, .g = *g, .bias = bias, .act = act, .declined = true};
    return NULL;
  }
  return e;
}

static bool run(dnnl_primitive_t p, int n, const dnnl_exec_arg_t* args) {
  return dnnl_primitive_execute(p, stream, n, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
}

/** The call's arrays, and the scratch for the blocked filter, into e's memory objects. */
static bool handles(entry* e, const void* a, const void* b, const void* c) {
  void* blocked = e->blocked ? scratch_for(e->blocked_bytes) : NULL;
  return dnnl_memory_set_data_handle(e->a, (void*)a) == dnnl_success && dnnl_memory_set_data_handle(e->b, (void*)b) == dnnl_success &&
         dnnl_memory_set_data_handle(e->c, (void*)c) == dnnl_success &&
         (!e->blocked || (blocked && dnnl_memory_set_data_handle(e->blocked, blocked) == dnnl_success));
}

/** The filter in the convolution's layout: reordered from hwio into the entry's buffer, or the hwio memory itself. */
static dnnl_memory_t filter_in(entry* e, bool* ok) {
  if (!e->filter_reorder) return e->c;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, e->c}, {DNNL_ARG_TO, e->blocked}};
  *ok = *ok && run(e->filter_reorder, 2, args);
  return e->blocked;
}

bool onednn_forward(const geometry* g, const float* x, const float* w, const float* bias, float* out, int act) {
  entry* e = lookup(FORWARD, g, bias != NULL, act);
  bool ok = e && handles(e, x, out, w) && (!bias || dnnl_memory_set_data_handle(e->bias_mem, (void*)bias) == dnnl_success);
  if (!ok) return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, e->a}, {DNNL_ARG_WEIGHTS, filter_in(e, &ok)}, {DNNL_ARG_DST, e->b}, {DNNL_ARG_BIAS, e->bias_mem}};
  return ok && run(e->conv, bias ? 4 : 3, args);
}

bool onednn_backprop_input(const geometry* g, const float* dy, const float* w, float* dx) {
  entry* e = lookup(BACKPROP_INPUT, g, 0, 0);
  bool ok = e && handles(e, dy, dx, w);
  if (!ok) return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_DIFF_DST, e->a}, {DNNL_ARG_WEIGHTS, filter_in(e, &ok)}, {DNNL_ARG_DIFF_SRC, e->b}};
  return ok && run(e->conv, 3, args);
}

bool onednn_backprop_filter(const geometry* g, const float* x, const float* dy, float* dw) {
  entry* e = lookup(BACKPROP_FILTER, g, 0, 0);
  if (!e || !handles(e, x, dy, dw)) return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, e->a}, {DNNL_ARG_DIFF_DST, e->b}, {DNNL_ARG_DIFF_WEIGHTS, e->filter_reorder ? e->blocked : e->c}};
  if (!run(e->conv, 3, args)) return false;
  if (!e->filter_reorder) return true;
  dnnl_exec_arg_t out[] = {{DNNL_ARG_FROM, e->blocked}, {DNNL_ARG_TO, e->c}};
  return run(e->filter_reorder, 2, out);
}
