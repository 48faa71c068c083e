// A JPEG decoder for the image pipeline's threads (src/data/images/jpeg-native.ts): libjpeg-turbo's
// TurboJPEG API decodes straight to RGB or grey, optionally at 1/2, 1/4 or 1/8 scale from the DCT,
// then jpeg-resample.c resizes. Synchronous, on the calling thread: a decoding thread does one
// image at a time, so the hop to libuv's pool and libvips's pipeline set-up that sharp pays per
// image buy nothing there. Each thread (each napi_env) has its own TurboJPEG handle.
//
//   header(jpeg: Uint8Array): [width, height, subsampling, colorspace] | null   (null: not a JPEG it reads)
//   decode(jpeg, out: Uint8Array, channels: 1 | 3, denom: 1 | 2 | 4 | 8, axes, outWidth, outHeight)
//     axes: Float64Array(14), x then y, each src_start, src_len, full_len, dst_off, dst_count, out_off, scale (jpeg-resample.h),
//     in pixels of the image decoded at 1/denom; out is zeroed first when the box does not fill it.
//     Throws an Error with libjpeg's message on a damaged file (a warning counts, as sharp's failOn: 'warning').
//   version(): string
#include <node_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#if __has_include(<jconfig.h>)
#include <jconfig.h> // LIBJPEG_TURBO_VERSION, where libjpeg-turbo's own headers are installed too
#endif

#include "jpeg-resample.h"

static void close_handle(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  tjDestroy((tjhandle)data);
}

/** This thread's decompressor, made on first use. */
static tjhandle handle_of(napi_env env) {
  void *h = NULL;
  if (napi_get_instance_data(env, &h) == napi_ok && h) return h;
  h = tjInitDecompress();
  if (h && napi_set_instance_data(env, h, close_handle, NULL) != napi_ok) {
    tjDestroy(h);
    h = NULL;
  }
  if (!h) napi_throw_error(env, "E_JPEG_INIT", "TurboJPEG: cannot make a decompressor");
  return h;
}

static bool bytes_of(napi_env env, napi_value v, const char *name, uint8_t **data, size_t *length) {
  bool is = false;
  napi_typedarray_type type;
  void *p = NULL;
  if (napi_is_typedarray(env, v, &is) == napi_ok && is &&
      napi_get_typedarray_info(env, v, &type, length, &p, NULL, NULL) == napi_ok && type == napi_uint8_array) {
    *data = p;
    return true;
  }
  char msg[96];
  snprintf(msg, sizeof msg, "jpeg: %s must be a Uint8Array", name);
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
  return false;
}

static napi_value Header(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result, v;
  uint8_t *jpeg;
  size_t len;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || !bytes_of(env, argv[0], "jpeg", &jpeg, &len)) return NULL;
  tjhandle h = handle_of(env);
  if (!h) return NULL;
  int dims[4];
  if (tjDecompressHeader3(h, jpeg, len, &dims[0], &dims[1], &dims[2], &dims[3]) != 0) {
    napi_get_null(env, &result);
    return result;
  }
  napi_create_array_with_length(env, 4, &result);
  for (uint32_t i = 0; i < 4; i++) {
    napi_create_int32(env, dims[i], &v);
    napi_set_element(env, result, i, v);
  }
  return result;
}

/** Whether the axis reads inside `size` source pixels and writes inside `out` output pixels. */
static bool axis_fits(mgpu_axis a, int size, int out) {
  return a.src_start >= 0 && a.src_len >= 1 && a.src_start + a.src_len <= size && a.full_len >= 1 && a.scale > 0 && a.dst_off >= 0 &&
         a.dst_count >= 1 && a.dst_off + a.dst_count <= a.full_len && a.out_off >= 0 && a.out_off + a.dst_count <= out;
}

static mgpu_axis axis_at(const double *g) {
  return (mgpu_axis){(int)g[0], (int)g[1], (int)g[2], (int)g[3], (int)g[4], (int)g[5], g[6]};
}

/** Decodes at 1/denom into a new buffer of *w x *h x channels; NULL with the error thrown. */
static uint8_t *decode_scaled(napi_env env, tjhandle h, const uint8_t *jpeg, size_t len, int channels, int denom, int *w,
                              int *hgt) {
  int sub, cs;
  if (tjDecompressHeader3(h, jpeg, len, w, hgt, &sub, &cs) != 0) {
    napi_throw_error(env, "E_JPEG_DECODE", tjGetErrorStr2(h));
    return NULL;
  }
  tjscalingfactor f = {1, denom};
  *w = TJSCALED(*w, f);
  *hgt = TJSCALED(*hgt, f);
  uint8_t *px = malloc((size_t)*w * *hgt * channels);
  if (!px) {
    napi_throw_error(env, "E_JPEG_MEMORY", "jpeg: out of memory");
    return NULL;
  }
  int pf = channels == 1 ? TJPF_GRAY : TJPF_RGB;
  if (tjDecompress2(h, jpeg, len, px, *w, 0, *hgt, pf, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
    napi_throw_error(env, "E_JPEG_DECODE", tjGetErrorStr2(h));
    free(px);
    return NULL;
  }
  return px;
}

static napi_value Decode(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint8_t *jpeg, *out;
  size_t len, out_len, g_len;
  int32_t channels = 0, denom = 0, out_w = 0, out_h = 0;
  void *g = NULL;
  napi_typedarray_type gt;
  if (argc < 7 || !bytes_of(env, argv[0], "jpeg", &jpeg, &len) || !bytes_of(env, argv[1], "out", &out, &out_len)) return NULL;
  napi_get_value_int32(env, argv[2], &channels);
  napi_get_value_int32(env, argv[3], &denom);
  napi_get_value_int32(env, argv[5], &out_w);
  napi_get_value_int32(env, argv[6], &out_h);
  if (napi_get_typedarray_info(env, argv[4], &gt, &g_len, &g, NULL, NULL) != napi_ok || gt != napi_float64_array || g_len != 14 ||
      (channels != 1 && channels != 3) || (denom != 1 && denom != 2 && denom != 4 && denom != 8) || out_w < 1 || out_h < 1 ||
      out_len < (size_t)out_w * out_h * channels) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "jpeg.decode: bad channels, denom, axes or output size");
    return NULL;
  }
  tjhandle h = handle_of(env);
  if (!h) return NULL;
  int w, hgt;
  uint8_t *px = decode_scaled(env, h, jpeg, len, channels, denom, &w, &hgt);
  if (!px) return NULL;
  mgpu_axis x = axis_at(g), y = axis_at((double *)g + 7);
  if (!axis_fits(x, w, out_w) || !axis_fits(y, hgt, out_h)) {
    free(px);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "jpeg.decode: the axes do not fit the image or the output");
    return NULL;
  }
  if (x.dst_count < out_w || y.dst_count < out_h) memset(out, 0, (size_t)out_w * out_h * channels);
  int failed = mgpu_resample(px, w, hgt, channels, x, y, out, out_w);
  free(px);
  if (failed) napi_throw_error(env, "E_JPEG_MEMORY", "jpeg: out of memory");
  return NULL;
}

static napi_value Version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v;
  // The version goes into what the machines of a run compare (its pixels are libjpeg-turbo's).
  char name[64];
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
  snprintf(name, sizeof name, "libjpeg-turbo %d.%d.%d", LIBJPEG_TURBO_VERSION_NUMBER / 1000000,
           LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000, LIBJPEG_TURBO_VERSION_NUMBER % 1000);
#else
  snprintf(name, sizeof name, "libjpeg-turbo");
#endif
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &v);
  return v;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"header", NULL, Header, NULL, NULL, NULL, napi_enumerable, NULL},
    {"decode", NULL, Decode, NULL, NULL, NULL, napi_enumerable, NULL},
    {"version", NULL, Version, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
