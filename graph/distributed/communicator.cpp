// The MPI world (communicator.h); without ABLATE_HAVE_MPI every call is the one-rank case.
#include "graph/distributed/communicator.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "graph/distributed/ring_allreduce.h"

#ifdef ABLATE_HAVE_MPI
#include <mpi.h>
#endif

namespace ablate::graph::distributed {

namespace {
bool g_initialized = false;
bool g_forked_child = false;
int g_rank = 0, g_size = 1;
pid_t g_launcher = 0;  // the parent process at init()
bool g_serialized = false;  // MPI_THREAD_SERIALIZED or more was provided

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

#ifdef ABLATE_HAVE_MPI
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

MPI_Datatype mpi_type(kernels::DType dtype, const char* what) {
  if (dtype == kernels::DType::f32) return MPI_FLOAT;
  if (dtype == kernels::DType::f64) return MPI_DOUBLE;
  throw std::invalid_argument(std::string(what) + ": precision " + kernels::dtype_name(dtype) +
                              " is not valid; expected f32 or f64");
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif
}  // namespace

bool mpi_built() {
#ifdef ABLATE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void init() {
  if (g_forked_child)
    throw std::runtime_error(
        "distributed training inside a sweep's run process: that process is not part of the MPI job (each run of "
        "a distributed sweep trains in one process; use --distributed with `ablate run`)");
  if (g_initialized) return;
#ifdef ABLATE_HAVE_MPI
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    // The loader's prefetch thread never calls MPI. The static graph's all-reduce nodes may run
    // on a thread of the inter-op pool, one at a time (they are chained): SERIALIZED.
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    g_serialized = provided >= MPI_THREAD_SERIALIZED;
    std::atexit(finalize_at_exit);
  } else {
    int provided = 0;
    MPI_Query_thread(&provided);
    g_serialized = provided >= MPI_THREAD_SERIALIZED;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_launcher = ::getppid();
  g_initialized = true;
#else
  throw std::runtime_error(
      "distributed training: this build of ablate has no MPI (install openmpi-bin and libopenmpi-dev, then "
      "configure with -DABLATE_MPI=ON)");
#endif
}

bool initialized() { return g_initialized; }
bool calls_from_any_thread() { return !g_initialized || g_size == 1 || g_serialized; }
int rank() { return g_rank; }
int size() { return g_size; }

bool launched() { return env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK"); }

int launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = env(name)) return std::atoi(v);
  return launched() ? 0 : 1;
}

void leave_in_forked_child() {
  g_forked_child = true;
  g_initialized = false;
  g_rank = 0;
  g_size = 1;
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool launcher = name.rfind("OMPI_", 0) == 0 || name.rfind("PMIX_", 0) == 0 || name.rfind("PMI_", 0) == 0;
    if (launcher && name.rfind("OMPI_ALLOW_RUN_AS_ROOT", 0) != 0) names.push_back(name);
  }
  for (const auto& name : names) ::unsetenv(name.c_str());
}

void exit_if_orphaned() {
  if (!g_initialized || g_size == 1 || ::getppid() == g_launcher) return;
  std::fprintf(stderr, "error: rank %d: its launcher (process %d) is gone; stopping\n", g_rank, static_cast<int>(g_launcher));
  std::_Exit(2);
}

void abort(int code) {
#ifdef ABLATE_HAVE_MPI
  if (g_initialized) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

std::vector<std::string> allreduce_names() { return {"mpi", "ring"}; }

void check_allreduce_name(const std::string& name, const std::string& what) {
  const auto names = allreduce_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw std::invalid_argument(what + " '" + name + "': not known; expected mpi or ring");
}

void allreduce_sum(const std::string& algorithm, void* data, std::int64_t count, kernels::DType dtype) {
  check_allreduce_name(algorithm, "all-reduce algorithm");
  if (count < 0) throw std::invalid_argument("all-reduce of " + std::to_string(count) + " values");
  if (g_size == 1 || count == 0) return;
#ifdef ABLATE_HAVE_MPI
  if (algorithm == "ring") {
    ring_allreduce_sum(data, count, dtype);
    return;
  }
  // MPI counts are int: large buffers go in pieces.
  const std::int64_t piece = 1 << 30;
  const MPI_Datatype type = mpi_type(dtype, "MPI_Allreduce");
  char* bytes = static_cast<char*>(data);
  for (std::int64_t done = 0; done < count; done += piece) {
    const int n = static_cast<int>(std::min(piece, count - done));
    check(MPI_Allreduce(MPI_IN_PLACE, bytes + done * static_cast<std::int64_t>(kernels::dtype_size(dtype)), n, type,
                        MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
#endif
}

double allreduce_sum(double value) {
#ifdef ABLATE_HAVE_MPI
  if (g_size > 1) check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return value;
}

std::vector<double> gather_to_root(double value) {
  std::vector<double> all(g_rank == 0 ? static_cast<std::size_t>(g_size) : 0);
  if (g_size == 1) {
    all[0] = value;
    return all;
  }
#ifdef ABLATE_HAVE_MPI
  check(MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Gather");
#endif
  return all;
}

void barrier() {
#ifdef ABLATE_HAVE_MPI
  if (g_size > 1) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

void send_text(int to, int tag, const std::string& text) {
  if (g_size == 1 || to < 0 || to >= g_size)
    throw std::invalid_argument("message to rank " + std::to_string(to) + " of " + std::to_string(g_size));
#ifdef ABLATE_HAVE_MPI
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "MPI_Send");
#endif
}

bool poll_text(int from, int tag, int& source, std::string& text) {
  if (g_size == 1) return false;
#ifdef ABLATE_HAVE_MPI
  int waiting = 0;
  MPI_Status status;
  check(MPI_Iprobe(from < 0 ? MPI_ANY_SOURCE : from, tag, MPI_COMM_WORLD, &waiting, &status), "MPI_Iprobe");
  if (!waiting) return false;
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  text.assign(static_cast<std::size_t>(length), '\0');
  source = status.MPI_SOURCE;
  check(MPI_Recv(text.data(), length, MPI_CHAR, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return true;
#else
  (void)from, (void)tag, (void)source, (void)text;
  return false;
#endif
}

std::string wait_text(int from, int tag, int& source) {
  if (g_size == 1) throw std::logic_error("waiting for a message in a job of one rank");
  std::string text;
  while (!poll_text(from, tag, source, text)) {
    exit_if_orphaned();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return text;
}

std::string broadcast_text(const std::string& text) {
  if (g_size == 1) return text;
  std::string out = g_rank == 0 ? text : std::string();
#ifdef ABLATE_HAVE_MPI
  long long length = static_cast<long long>(out.size());
  check(MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  out.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
  return out;
}

}  // namespace ablate::graph::distributed
