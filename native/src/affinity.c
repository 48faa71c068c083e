// Pins every thread of the calling process to a set of CPUs (Linux sched_setaffinity), so a
// simulated-GPU worker keeps its own physical core. Node starts its libuv and V8 threads before
// any JavaScript runs, so pinning only the main thread would leave them free: each thread listed
// in /proc/self/task is pinned, and threads started later inherit the mask.
//
//   pinProcess(cpus: number[]): number   -> threads pinned; throws with errno on failure
//   allowedCpus(): number[]               -> the CPUs this process may run on now
#include <node_api.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void throw_errno(napi_env env, const char *call, int err) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", call, strerror(err));
  napi_value text, error, code;
  napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text);
  napi_create_error(env, NULL, text, &error);
  napi_create_int32(env, err, &code);
  napi_set_named_property(env, error, "errno", code);
  napi_throw(env, error);
}

static napi_value PinProcess(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  bool is_array = false;
  if (argc < 1 || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array) {
    napi_throw_type_error(env, NULL, "pinProcess(cpus): cpus must be an array of CPU numbers");
    return NULL;
  }
  uint32_t n = 0;
  napi_get_array_length(env, argv[0], &n);
  if (n == 0) {
    napi_throw_range_error(env, NULL, "pinProcess(cpus): cpus is empty");
    return NULL;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    int32_t cpu = -1;
    napi_get_element(env, argv[0], i, &v);
    if (napi_get_value_int32(env, v, &cpu) != napi_ok || cpu < 0 || cpu >= CPU_SETSIZE) {
      napi_throw_range_error(env, NULL, "pinProcess(cpus): each CPU must be an integer in [0, CPU_SETSIZE)");
      return NULL;
    }
    CPU_SET(cpu, &set);
  }
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks) {
    throw_errno(env, "opendir /proc/self/task", errno);
    return NULL;
  }
  int pinned = 0;
  struct dirent *e;
  while ((e = readdir(tasks)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    pid_t tid = (pid_t)atoi(e->d_name);
    if (sched_setaffinity(tid, sizeof set, &set) != 0) {
      if (errno == ESRCH) continue; // the thread ended meanwhile
      int err = errno;
      closedir(tasks);
      throw_errno(env, "sched_setaffinity", err);
      return NULL;
    }
    pinned++;
  }
  closedir(tasks);
  napi_value out;
  napi_create_int32(env, pinned, &out);
  return out;
}

static napi_value AllowedCpus(napi_env env, napi_callback_info info) {
  (void)info;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    throw_errno(env, "sched_getaffinity", errno);
    return NULL;
  }
  napi_value out;
  napi_create_array(env, &out);
  uint32_t k = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    napi_value v;
    napi_create_int32(env, cpu, &v);
    napi_set_element(env, out, k++, v);
  }
  return out;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"pinProcess", NULL, PinProcess, NULL, NULL, NULL, napi_enumerable, NULL},
    {"allowedCpus", NULL, AllowedCpus, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
