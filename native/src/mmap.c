// mgpu_mmap: maps a shared-memory file descriptor (the slab) and hands JavaScript an ArrayBuffer
// over the shared pages. Plain C against node_api.h only, so one binary loads in every Node
// process and every worker_thread (piscina) of the same ABI: the module is context-aware
// (NAPI_MODULE_INIT), keeps no global state but copyFrom's SIGBUS handler (one per process, see
// the copy guard), and each caller maps the descriptor itself.
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
//   copyFrom(into, src, runs, count, fd, fileBytes) -> number
//     Copies `count` runs out of a mapping of a data file (`src`, an ArrayBuffer from map) into
//     the Uint8Array `into`: run i is runs[3i] bytes from src offset runs[3i+1] to into offset
//     runs[3i+2]. The copy runs under a SIGBUS guard (see copy-guard below), then fstat(fd) says
//     whether the file is still fileBytes long. Returns -1 when the copy is good; else the byte
//     at which the file now ends (it was cut short: a page of the copy was past its end, or the
//     bytes copied from its last page may be the zeros the kernel gives past the end).
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
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
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

// ---- The copy guard: a copy out of a mapped data file that survives the file being cut short.
// A page of a mapping that lies wholly past the file's current end raises SIGBUS when touched
// (the file was truncated after it was mapped: np.save truncates before it writes), and the
// default action kills the process with no message. While a thread copies out of a mapping
// (copyFrom), a SIGBUS at an address in the mapping it reads jumps back into that copy
// (siglongjmp), which then says where the file ended. Any other SIGBUS (another thread, another
// address, one sent with kill) goes to the handler that was there before, or gets the default
// action. The handler is installed once per process, on the first copyFrom; the state is per
// thread, in the initial-exec TLS model, so the handler reading it never allocates (the default
// model of a dlopen'ed library may allocate a thread's block on its first touch).
#define GUARD_TLS __thread __attribute__((tls_model("initial-exec")))
static GUARD_TLS sigjmp_buf* volatile guard_env;  // set while this thread copies under the guard
static GUARD_TLS const char* volatile guard_lo;   // the mapping it reads: [lo, hi)
static GUARD_TLS const char* volatile guard_hi;
static GUARD_TLS const char* volatile guard_fault;  // the address that faulted

static struct sigaction previous_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_install_error;

static void on_sigbus(int sig, siginfo_t* info, void* context) {
  sigjmp_buf* env = guard_env;
  const char* at = info ? (const char*)info->si_addr : NULL;
  // si_code > 0: raised by the kernel for a fault, not sent by a process.
  if (env && info && info->si_code > 0 && at >= guard_lo && at < guard_hi) {
    guard_fault = at;
    guard_env = NULL;
    siglongjmp(*env, 1);
  }
  if (previous_bus.sa_flags & SA_SIGINFO) {
    previous_bus.sa_sigaction(sig, info, context);
    return;
  }
  if (previous_bus.sa_handler == SIG_IGN && info && info->si_code <= 0) return;  // a sent one, ignored as before
  if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
    previous_bus.sa_handler(sig);
    return;
  }
  // The default action (a fault cannot be ignored): restore it and raise again; the signal is
  // delivered as this handler returns, and a fault would repeat anyway.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
}

static void install_guard(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGBUS, &sa, &previous_bus) != 0) guard_install_error = errno;
}

// Copies `count` runs (length, src offset, into offset) from `src` (a mapping of `src_length`
// bytes) to `into`; returns NULL, or the address in `src` whose page was past the file's end.
static const char* guarded_copy(char* into, const char* src, size_t src_length, const double* runs, size_t count) {
  sigjmp_buf env;
  guard_lo = src;
  guard_hi = src + src_length;
  guard_fault = NULL;
  if (sigsetjmp(env, 0) != 0) {
    // Back from the handler, whose mask (SIGBUS blocked) savemask 0 did not undo: unblock it,
    // or the next fault in this thread would kill the process whatever the handler.
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
    return guard_fault;
  }
  guard_env = &env;
  atomic_signal_fence(memory_order_seq_cst);  // the guard is up before the first byte is read
  for (size_t i = 0; i < count; i++) {
    memcpy(into + (size_t)runs[3 * i + 2], src + (size_t)runs[3 * i + 1], (size_t)runs[3 * i]);
  }
  atomic_signal_fence(memory_order_seq_cst);  // and down only after the last
  guard_env = NULL;
  return NULL;
}

// Reads `value` as the bytes of a typed array of type `want` (typed) or of an ArrayBuffer; throws (naming it) otherwise.
static int get_bytes(napi_env env, napi_value value, const char* name, bool typed, napi_typedarray_type want,
                     void** data, size_t* length) {
  bool is = false;
  if (typed) {
    napi_typedarray_type type;
    size_t elements, byte_offset;
    napi_value ab;
    if (napi_is_typedarray(env, value, &is) == napi_ok && is &&
        napi_get_typedarray_info(env, value, &type, &elements, data, &ab, &byte_offset) == napi_ok && type == want) {
      *length = elements * (want == napi_float64_array ? 8 : 1);
      return 1;
    }
  } else if (napi_is_arraybuffer(env, value, &is) == napi_ok && is &&
             napi_get_arraybuffer_info(env, value, data, length) == napi_ok) {
    return 1;
  }
  char message[160];
  snprintf(message, sizeof message, "copyFrom: %s must be %s", name,
           !typed ? "an ArrayBuffer (from map)" : want == napi_uint8_array ? "a Uint8Array" : "a Float64Array");
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return 0;
}

// copyFrom(into, src, runs, count, fd, fileBytes): see the header.
static napi_value CopyFrom(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value args[6];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  if (argc < 6) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "copyFrom(into, src, runs, count, fd, fileBytes) takes six arguments");
    return NULL;
  }
  void *into, *src, *runs_data;
  size_t into_length, src_length, runs_length;
  double count_d, fd_d, file_bytes;
  if (!get_bytes(env, args[0], "into", true, napi_uint8_array, &into, &into_length) ||
      !get_bytes(env, args[1], "src", false, napi_uint8_array, &src, &src_length) ||
      !get_bytes(env, args[2], "runs", true, napi_float64_array, &runs_data, &runs_length) ||
      !get_integer(env, "copyFrom", args[3], "count", 0, (double)(runs_length / 24), &count_d) ||
      !get_integer(env, "copyFrom", args[4], "fd", 0, 2147483647.0, &fd_d) ||
      !get_integer(env, "copyFrom", args[5], "fileBytes", 0, MAX_SAFE, &file_bytes)) {
    return NULL;
  }
  const double* runs = runs_data;
  const size_t count = (size_t)count_d;
  for (size_t i = 0; i < count; i++) {
    const double n = runs[3 * i], from = runs[3 * i + 1], to = runs[3 * i + 2];
    if (!(n >= 0 && from >= 0 && to >= 0 && n == floor(n) && from == floor(from) && to == floor(to) &&
          from + n <= (double)src_length && to + n <= (double)into_length)) {
      char message[256];
      snprintf(message, sizeof message, "copyFrom: run %zu (%g bytes from %g to %g) is outside src (%zu bytes) or into (%zu bytes)",
               i, n, from, to, src_length, into_length);
      napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
      return NULL;
    }
  }
  pthread_once(&guard_once, install_guard);
  if (guard_install_error) {
    throw_errno(env, "sigaction", guard_install_error, "(the SIGBUS guard of copyFrom)");
    return NULL;
  }
  const char* fault = guarded_copy(into, src, src_length, runs, count);
  struct stat st;
  if (fstat((int)fd_d, &st) != 0) {
    throw_errno(env, "fstat", errno, "(the data file copyFrom reads)");
    return NULL;
  }
  double ended = -1;
  if ((double)st.st_size < file_bytes) ended = (double)st.st_size;
  if (fault) {
    const double page = (double)sysconf(_SC_PAGESIZE);
    const double at = floor((double)(fault - (const char*)src) / page) * page;  // the first page past the end
    if (ended < 0 || at < ended) ended = at;
  }
  napi_value v;
  napi_create_double(env, ended, &v);
  return v;
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
    {"copyFrom", NULL, CopyFrom, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
