// mgpu_mmap: maps a shared-memory file descriptor (the slab) and hands JavaScript an ArrayBuffer
// over the shared pages. Plain C against node_api.h only, so one binary loads in every Node
// process and every worker_thread (piscina) of the same ABI: the module is context-aware
// (NAPI_MODULE_INIT), keeps no global state, and each caller maps the descriptor itself.
//
//   map(fd, offset, length[, private]) -> ArrayBuffer | null
//     MAP_SHARED, PROT_READ|PROT_WRITE (with `private` true: MAP_PRIVATE, for a data file opened
//     read-only: its pages are the page cache's until written, and a write never reaches the
//     file); offset and length page-aligned, length > 0, and no
//     page wholly past the end of a regular file (touching one would raise SIGBUS and kill the
//     process). The ArrayBuffer's finaliser munmaps. Returns null (after unmapping) when this
//     runtime refuses or copies external buffers (V8 sandbox builds such as Electron's): the
//     caller then falls back to positional I/O.
//   pageSize() -> number
//   allocate(fd, offset, length) -> undefined  (posix_fallocate: reserve the pages before mapping)
//   externalBuffersAllowed() -> boolean  (a probe: the same check map() makes, without a file)
//
// Errors are thrown as JS errors: a system call failure carries `code` (e.g. 'EBADF'), `errno`
// (negative, as in Node's own fs errors), `syscall` and the strerror text in the message; a
// bad argument is a TypeError ('ERR_INVALID_ARG_TYPE') or RangeError ('ERR_OUT_OF_RANGE' /
// 'ERR_INVALID_ARG_VALUE').
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Largest integer a JS number holds exactly.
#define MAX_SAFE 9007199254740991.0

static const char* errno_name(int err) {
  switch (err) {
    case EACCES: return "EACCES";
    case EAGAIN: return "EAGAIN";
    case EBADF: return "EBADF";
    case EEXIST: return "EEXIST";
    case EFBIG: return "EFBIG";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case EISDIR: return "EISDIR";
    case ENOTSUP: return "ENOTSUP";
    case ESPIPE: return "ESPIPE";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENODEV: return "ENODEV";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
    case ENXIO: return "ENXIO";
    case EOVERFLOW: return "EOVERFLOW";
    case EPERM: return "EPERM";
    case ETXTBSY: return "ETXTBSY";
    default: return "EUNKNOWN";
  }
}

// Throws Error(message) with code/errno/syscall properties, like Node's fs errors.
static void throw_errno(napi_env env, const char* syscall, int err, const char* context) {
  char message[512];
  snprintf(message, sizeof message, "%s: %s (%s)%s%s", syscall, strerror(err), errno_name(err),
           context[0] ? " " : "", context);
  napi_value msg, code, error, errnum, sc;
  if (napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg) != napi_ok ||
      napi_create_string_utf8(env, errno_name(err), NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_error(env, code, msg, &error) != napi_ok) {
    napi_throw_error(env, errno_name(err), message);
    return;
  }
  if (napi_create_int32(env, -err, &errnum) == napi_ok) napi_set_named_property(env, error, "errno", errnum);
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &sc) == napi_ok) {
    napi_set_named_property(env, error, "syscall", sc);
  }
  napi_throw(env, error);
}

static void throw_range(napi_env env, const char* code, const char* fmt, double a, double b, double c) {
  char message[512];
  snprintf(message, sizeof message, fmt, a, b, c);
  napi_throw_range_error(env, code, message);
}

// Reads `value` as an integer in [min, max]; throws (naming fn and the argument) and returns 0 otherwise.
static int get_integer(napi_env env, const char* fn, napi_value value, const char* name, double min, double max,
                       double* out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number) {
    char message[160];
    snprintf(message, sizeof message, "%s: %s must be a number", fn, name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
    return 0;
  }
  double v;
  napi_get_value_double(env, value, &v);
  if (!isfinite(v) || v != floor(v) || v < min || v > max) {
    char message[200];
    snprintf(message, sizeof message, "%s: %s must be an integer in [%.0f, %.0f], got %g", fn, name, min, max, v);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
    return 0;
  }
  *out = v;
  return 1;
}

static void unmap_finalizer(napi_env env, void* data, void* hint) {
  (void)env;  // may run during environment teardown: touch nothing but the mapping
  munmap(data, (size_t)(uintptr_t)hint);
}

static void free_finalizer(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  free(data);
}

// What napi_create_external_arraybuffer did with `data`.
typedef enum { EXT_OK, EXT_REFUSED, EXT_COPIED, EXT_FAILED } ext_result;

static ext_result make_external(napi_env env, void* data, size_t length, napi_finalize fin, void* hint,
                                napi_value* out) {
  napi_status status = napi_create_external_arraybuffer(env, data, length, fin, hint, out);
  if (status == napi_no_external_buffers_allowed) return EXT_REFUSED;  // nothing was created
  if (status != napi_ok) return EXT_FAILED;
  // A runtime that copies external memory into its own heap (a V8 sandbox patch) would break
  // the sharing silently: check that the ArrayBuffer really points at our pages.
  void* seen = NULL;
  size_t seen_length = 0;
  if (napi_get_arraybuffer_info(env, *out, &seen, &seen_length) != napi_ok || seen != data ||
      seen_length != length) {
    return EXT_COPIED;
  }
  return EXT_OK;
}

static napi_value js_null(napi_env env) {
  napi_value v;
  napi_get_null(env, &v);
  return v;
}

static napi_value Map(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value args[4];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "map(fd, offset, length) takes three numbers");
    return NULL;
  }
  bool is_private = false;
  if (argc > 3 && napi_get_value_bool(env, args[3], &is_private) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "map: private must be a boolean");
    return NULL;
  }
  double fd_d, offset_d, length_d;
  if (!get_integer(env, "map", args[0], "fd", 0, 2147483647.0, &fd_d)) return NULL;
  if (!get_integer(env, "map", args[1], "offset", 0, MAX_SAFE, &offset_d)) return NULL;
  if (!get_integer(env, "map", args[2], "length", 0, MAX_SAFE, &length_d)) return NULL;

  const double page = (double)sysconf(_SC_PAGESIZE);
  if (length_d == 0) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "map: length is 0; a mapping needs at least one page");
    return NULL;
  }
  if ((uint64_t)offset_d % (uint64_t)page != 0) {
    throw_range(env, "ERR_INVALID_ARG_VALUE", "map: offset %.0f is not a multiple of the page size (%.0f); the nearest aligned offset below is %.0f",
                offset_d, page, floor(offset_d / page) * page);
    return NULL;
  }
  if ((uint64_t)length_d % (uint64_t)page != 0) {
    throw_range(env, "ERR_INVALID_ARG_VALUE", "map: length %.0f is not a multiple of the page size (%.0f); round it up to %.0f",
                length_d, page, ceil(length_d / page) * page);
    return NULL;
  }
  if (length_d > (double)SIZE_MAX || offset_d + length_d > MAX_SAFE ||
      (sizeof(off_t) < 8 && offset_d + length_d > 2147483647.0)) {
    throw_range(env, "ERR_OUT_OF_RANGE", "map: offset %.0f + length %.0f does not fit this platform's address space",
                offset_d, length_d, 0);
    return NULL;
  }
  const int fd = (int)fd_d;
  const off_t offset = (off_t)offset_d;
  const size_t length = (size_t)length_d;

  char context[128];
  snprintf(context, sizeof context, "(fd %d, offset %.0f, length %.0f)", fd, offset_d, length_d);

  struct stat st;
  if (fstat(fd, &st) != 0) {
    throw_errno(env, "fstat", errno, context);
    return NULL;
  }
  // Pages wholly past the end of a file raise SIGBUS when touched: refuse them up front.
  if (S_ISREG(st.st_mode)) {
    const double end = ceil((double)st.st_size / page) * page;
    if (offset_d + length_d > end) {
      throw_range(env, "ERR_OUT_OF_RANGE",
                  "map: [%.0f, %.0f) extends past the end of the file (%.0f bytes); touching those pages would raise SIGBUS",
                  offset_d, offset_d + length_d, (double)st.st_size);
      return NULL;
    }
  }

  void* addr = mmap(NULL, length, PROT_READ | PROT_WRITE, is_private ? MAP_PRIVATE : MAP_SHARED, fd, offset);
  if (addr == MAP_FAILED) {
    throw_errno(env, "mmap", errno, context);
    return NULL;
  }

  napi_value result;
  switch (make_external(env, addr, length, unmap_finalizer, (void*)(uintptr_t)length, &result)) {
    case EXT_OK:
      return result;
    case EXT_REFUSED:
      munmap(addr, length);  // the runtime created nothing and will never call the finaliser
      return js_null(env);
    case EXT_COPIED:
      return js_null(env);  // the finaliser owns the mapping now and unmaps it when collected
    case EXT_FAILED:
    default: {
      // The runtime may or may not have handed the pointer to its finaliser; leaking the mapping
      // is safe, a second munmap (of pages that may have been mapped again since) is not.
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      if (!pending) {
        const napi_extended_error_info* err = NULL;
        napi_get_last_error_info(env, &err);
        char message[256];
        snprintf(message, sizeof message, "map: napi_create_external_arraybuffer failed: %s",
                 err && err->error_message ? err->error_message : "unknown error");
        napi_throw_error(env, "E_MMAP_NAPI", message);
      }
      return NULL;
    }
  }
}

// allocate(fd, offset, length): posix_fallocate, so the pages of a tmpfs file exist before they
// are touched through a mapping. Without it a store into a sparse page of a full /dev/shm raises
// SIGBUS (the process dies with no message); with it the shortage is an ENOSPC error here.
static napi_value Allocate(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "allocate(fd, offset, length) takes three numbers");
    return NULL;
  }
  double fd_d, offset_d, length_d;
  if (!get_integer(env, "allocate", args[0], "fd", 0, 2147483647.0, &fd_d)) return NULL;
  if (!get_integer(env, "allocate", args[1], "offset", 0, MAX_SAFE, &offset_d)) return NULL;
  if (!get_integer(env, "allocate", args[2], "length", 1, MAX_SAFE, &length_d)) return NULL;
  char context[128];
  snprintf(context, sizeof context, "(fd %.0f, offset %.0f, length %.0f)", fd_d, offset_d, length_d);
  if (sizeof(off_t) < 8 && offset_d + length_d > 2147483647.0) {
    throw_errno(env, "posix_fallocate", EFBIG, context);
    return NULL;
  }
  int err;
  do {
    err = posix_fallocate((int)fd_d, (off_t)offset_d, (off_t)length_d);
  } while (err == EINTR);
  if (err != 0) {
    throw_errno(env, "posix_fallocate", err, context);
    return NULL;
  }
  return NULL;  // undefined
}

static napi_value PageSize(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v;
  napi_create_double(env, (double)sysconf(_SC_PAGESIZE), &v);
  return v;
}

static napi_value ExternalBuffersAllowed(napi_env env, napi_callback_info info) {
  (void)info;
  const size_t length = 64;
  void* data = calloc(1, length);
  if (!data) {
    throw_errno(env, "calloc", ENOMEM, "");
    return NULL;
  }
  napi_value ab;
  const ext_result r = make_external(env, data, length, free_finalizer, NULL, &ab);
  if (r == EXT_REFUSED) free(data);
  // EXT_FAILED: possibly owned by the finaliser; leak 64 bytes rather than risk a double free.
  napi_value v;
  napi_get_boolean(env, r == EXT_OK, &v);
  return v;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"map", NULL, Map, NULL, NULL, NULL, napi_enumerable, NULL},
    {"pageSize", NULL, PageSize, NULL, NULL, NULL, napi_enumerable, NULL},
    {"allocate", NULL, Allocate, NULL, NULL, NULL, napi_enumerable, NULL},
    {"externalBuffersAllowed", NULL, ExternalBuffersAllowed, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
