// The shared tuning winners (see shared_tuning.h): one map for the process, guarded by a mutex
// (backends tune from the static strategy's inter-op threads too), live while a scope is.
#include "kernels/shared_tuning.h"

#include <map>
#include <mutex>

namespace ablate::kernels {

namespace {

struct Shared {
  std::mutex mutex;
  int scopes = 0;
  int handed_out = 0;
  std::map<std::string, std::string> winners;
};

Shared& shared() {
  static Shared s;
  return s;
}

}  // namespace

SharedTuning::SharedTuning() {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  ++shared().scopes;
}

SharedTuning::~SharedTuning() {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  if (--shared().scopes == 0) shared().winners.clear(), shared().handed_out = 0;
}

std::optional<std::string> SharedTuning::winner(const std::string& key) {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  auto it = shared().winners.find(key);
  if (shared().scopes == 0 || it == shared().winners.end()) return std::nullopt;
  ++shared().handed_out;
  return it->second;
}

void SharedTuning::record(const std::string& key, const std::string& winner) {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  if (shared().scopes > 0) shared().winners[key] = winner;
}

int SharedTuning::recorded() {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  return static_cast<int>(shared().winners.size());
}

int SharedTuning::handed_out() {
  const std::lock_guard<std::mutex> lock(shared().mutex);
  return shared().handed_out;
}

}  // namespace ablate::kernels
