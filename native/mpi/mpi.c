// mgpu-train's MPI binding: the few calls one coordinator per machine needs to train with the
// others (src/coordinator/cluster.ts). Collectives are non-blocking: start one, then poll it
// with test() from the event loop, so a coordinator waiting on another machine keeps its
// deadline and its signal handlers. A buffer given to a pending operation is held (napi
// reference) until test() reports it complete.
//
//   init() -> { rank, size, host }            MPI_Init_thread (funneled: only the main thread calls MPI)
//   iallreduceSum(Float32Array | Float64Array) -> id     in place, MPI_SUM
//   iallgather(send: Uint8Array, recv: Uint8Array) -> id  recv.length == send.length * size
//   isendInt(dest, tag, value) -> id / irecvInt(source, tag, into: Int32Array) -> id
//   test(id) -> boolean                        true once complete (the id is then freed)
//   abort(code)                                MPI_Abort on MPI_COMM_WORLD: the launcher ends every rank
//   finalize()
#include <mpi.h>
#include <node_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 256

typedef struct {
  int used;
  MPI_Request request;
  napi_ref refs[2];
  int nrefs;
  int32_t send_value; // isendInt's payload lives here until the send completes
} pending_t;

static pending_t pending[MAX_PENDING];

static void throw_mpi(napi_env env, const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  char msg[MPI_MAX_ERROR_STRING + 64];
  snprintf(msg, sizeof msg, "%s: %s", call, text);
  napi_throw_error(env, "E_MPI", msg);
}

static int take_slot(napi_env env) {
  for (int i = 0; i < MAX_PENDING; i++) {
    if (!pending[i].used) {
      memset(&pending[i], 0, sizeof pending[i]);
      pending[i].used = 1;
      return i;
    }
  }
  napi_throw_error(env, "E_MPI", "too many MPI operations in flight");
  return -1;
}

static void hold(napi_env env, int slot, napi_value v) {
  napi_create_reference(env, v, 1, &pending[slot].refs[pending[slot].nrefs++]);
}

static napi_value make_int(napi_env env, int v) {
  napi_value out;
  napi_create_int32(env, v, &out);
  return out;
}

static napi_value Init(napi_env env, napi_callback_info info) {
  (void)info;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
      throw_mpi(env, "MPI_Init_thread", rc);
      return NULL;
    }
  }
  int rank = 0, size = 1, len = 0;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  napi_value out, h;
  napi_create_object(env, &out);
  napi_set_named_property(env, out, "rank", make_int(env, rank));
  napi_set_named_property(env, out, "size", make_int(env, size));
  napi_create_string_utf8(env, host, (size_t)len, &h);
  napi_set_named_property(env, out, "host", h);
  return out;
}

static int typed_array(napi_env env, napi_value v, napi_typedarray_type *type, void **data, size_t *length) {
  bool is = false;
  napi_is_typedarray(env, v, &is);
  if (!is) return 0;
  napi_value ab;
  size_t offset;
  napi_get_typedarray_info(env, v, type, length, data, &ab, &offset);
  return 1;
}

static napi_value IallreduceSum(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_typedarray_type type;
  void *data;
  size_t length;
  if (argc < 1 || !typed_array(env, argv[0], &type, &data, &length) || (type != napi_float32_array && type != napi_float64_array)) {
    napi_throw_type_error(env, NULL, "iallreduceSum(buffer): a Float32Array or Float64Array");
    return NULL;
  }
  int slot = take_slot(env);
  if (slot < 0) return NULL;
  int rc = MPI_Iallreduce(MPI_IN_PLACE, data, (int)length, type == napi_float32_array ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &pending[slot].request);
  if (rc != MPI_SUCCESS) {
    pending[slot].used = 0;
    throw_mpi(env, "MPI_Iallreduce", rc);
    return NULL;
  }
  hold(env, slot, argv[0]);
  return make_int(env, slot);
}

static napi_value Iallgather(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_typedarray_type ts, tr;
  void *send, *recv;
  size_t ns, nr;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || !typed_array(env, argv[0], &ts, &send, &ns) || !typed_array(env, argv[1], &tr, &recv, &nr) || ts != napi_uint8_array || tr != napi_uint8_array || nr != ns * (size_t)size) {
    napi_throw_type_error(env, NULL, "iallgather(send, recv): Uint8Arrays, recv.length == send.length * size");
    return NULL;
  }
  int slot = take_slot(env);
  if (slot < 0) return NULL;
  int rc = MPI_Iallgather(send, (int)ns, MPI_BYTE, recv, (int)ns, MPI_BYTE, MPI_COMM_WORLD, &pending[slot].request);
  if (rc != MPI_SUCCESS) {
    pending[slot].used = 0;
    throw_mpi(env, "MPI_Iallgather", rc);
    return NULL;
  }
  hold(env, slot, argv[0]);
  hold(env, slot, argv[1]);
  return make_int(env, slot);
}

static napi_value IsendInt(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t dest = 0, tag = 0, value = 0;
  if (argc < 3 || napi_get_value_int32(env, argv[0], &dest) != napi_ok || napi_get_value_int32(env, argv[1], &tag) != napi_ok || napi_get_value_int32(env, argv[2], &value) != napi_ok) {
    napi_throw_type_error(env, NULL, "isendInt(dest, tag, value): integers");
    return NULL;
  }
  int slot = take_slot(env);
  if (slot < 0) return NULL;
  pending[slot].send_value = value;
  int rc = MPI_Isend(&pending[slot].send_value, 1, MPI_INT32_T, dest, tag, MPI_COMM_WORLD, &pending[slot].request);
  if (rc != MPI_SUCCESS) {
    pending[slot].used = 0;
    throw_mpi(env, "MPI_Isend", rc);
    return NULL;
  }
  return make_int(env, slot);
}

static napi_value IrecvInt(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t source = 0, tag = 0;
  napi_typedarray_type type;
  void *data;
  size_t length;
  if (argc < 3 || napi_get_value_int32(env, argv[0], &source) != napi_ok || napi_get_value_int32(env, argv[1], &tag) != napi_ok ||
      !typed_array(env, argv[2], &type, &data, &length) || type != napi_int32_array || length < 1) {
    napi_throw_type_error(env, NULL, "irecvInt(source, tag, into: Int32Array)");
    return NULL;
  }
  int slot = take_slot(env);
  if (slot < 0) return NULL;
  int rc = MPI_Irecv(data, 1, MPI_INT32_T, source, tag, MPI_COMM_WORLD, &pending[slot].request);
  if (rc != MPI_SUCCESS) {
    pending[slot].used = 0;
    throw_mpi(env, "MPI_Irecv", rc);
    return NULL;
  }
  hold(env, slot, argv[2]);
  return make_int(env, slot);
}

static napi_value Test(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t slot = -1;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &slot) != napi_ok || slot < 0 || slot >= MAX_PENDING || !pending[slot].used) {
    napi_throw_range_error(env, NULL, "test(id): not an operation in flight");
    return NULL;
  }
  int done = 0;
  int rc = MPI_Test(&pending[slot].request, &done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    throw_mpi(env, "MPI_Test", rc);
    return NULL;
  }
  if (done) {
    for (int i = 0; i < pending[slot].nrefs; i++) napi_delete_reference(env, pending[slot].refs[i]);
    pending[slot].used = 0;
  }
  napi_value out;
  napi_get_boolean(env, done != 0, &out);
  return out;
}

static napi_value Abort(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t code = 1;
  if (argc >= 1) napi_get_value_int32(env, argv[0], &code);
  fflush(stdout);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  return NULL;
}

static napi_value Finalize(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"init", NULL, Init, NULL, NULL, NULL, napi_enumerable, NULL},
    {"iallreduceSum", NULL, IallreduceSum, NULL, NULL, NULL, napi_enumerable, NULL},
    {"iallgather", NULL, Iallgather, NULL, NULL, NULL, napi_enumerable, NULL},
    {"isendInt", NULL, IsendInt, NULL, NULL, NULL, napi_enumerable, NULL},
    {"irecvInt", NULL, IrecvInt, NULL, NULL, NULL, napi_enumerable, NULL},
    {"test", NULL, Test, NULL, NULL, NULL, napi_enumerable, NULL},
    {"abort", NULL, Abort, NULL, NULL, NULL, napi_enumerable, NULL},
    {"finalize", NULL, Finalize, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
