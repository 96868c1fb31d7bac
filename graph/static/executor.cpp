// The sequential executor and the inter-op thread pool (see executor.h).
#include "graph/static/executor.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <queue>
#include <stdexcept>
#include <thread>

namespace ablate::graph::static_graph {
namespace {

class SequentialExecutor final : public Executor {
 public:
  explicit SequentialExecutor(std::vector<int> order) : order_(std::move(order)) {}
  std::string name() const override { return "sequential"; }
  int threads() const override { return 1; }
  void run(const std::function<void(int)>& run_node) override {
    for (int id : order_) run_node(id);
  }

 private:
  std::vector<int> order_;
};

// Ready nodes wait in a queue ordered by their sequential position (earliest first, so the
// schedule stays close to the planned one); each thread takes one, runs it outside the lock,
// then releases its successors. The calling thread is one of the pool's `threads`: it works
// beside threads - 1 background workers until the run's last node is done, so a pool of one
// runs every node on the caller, as the sequential executor does, with no hand-off to another
// thread and back at each run (the executor's cost per node, kept under a microsecond).
class ParallelExecutor final : public Executor {
 public:
  ParallelExecutor(int threads, std::vector<int> order, const std::vector<std::vector<int>>& predecessors)
      : order_(std::move(order)), successors_(order_.size()), initial_(order_.size(), 0) {
    for (std::size_t i = 0; i < predecessors.size(); ++i)
      for (int p : predecessors[i]) {
        successors_[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
        ++initial_[i];
      }
    for (int t = 1; t < threads; ++t)
      workers_.emplace_back([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        work(lock, false);
      });
  }
  ~ParallelExecutor() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    work_ready_.notify_all();
    for (auto& w : workers_) w.join();
  }
  std::string name() const override { return "parallel"; }
  int threads() const override { return static_cast<int>(workers_.size()) + 1; }

  void run(const std::function<void(int)>& run_node) override {
    std::unique_lock<std::mutex> lock(mutex_);
    run_node_ = &run_node;
    pending_ = initial_;
    remaining_ = order_.size();
    error_ = nullptr;
    std::size_t roots = 0;
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (pending_[i] == 0) {
        ready_.push(static_cast<int>(i));
        ++roots;
      }
    wake_for(roots);
    work(lock, true);
    run_node_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // `ready` nodes were queued by a thread that takes one itself: the others are woken for the rest.
  void wake_for(std::size_t ready) {
    if (ready > 2) work_ready_.notify_all();
    else if (ready == 2) work_ready_.notify_one();
  }

  // Takes and runs ready nodes: the caller until the run's last node is done, a background
  // worker until the executor stops. Waking a sleeping worker for every node of a chain cost a
  // futex wake and a thread switch per node (strategy/static_nodes/ in bench/micro), so the
  // thread that releases nodes keeps one of them.
  void work(std::unique_lock<std::mutex>& lock, bool caller) {
    for (;;) {
      work_ready_.wait(lock, [&] { return stop_ || !ready_.empty() || (caller && remaining_ == 0); });
      if (stop_ || (caller && remaining_ == 0)) return;
      const int i = ready_.top();
      ready_.pop();
      const bool skip = error_ != nullptr;
      lock.unlock();
      std::exception_ptr failure;
      if (!skip) {
        try {
          (*run_node_)(order_[static_cast<std::size_t>(i)]);
        } catch (...) {
          failure = std::current_exception();
        }
      }
      lock.lock();
      if (failure && !error_) error_ = failure;
      std::size_t released = 0;
      for (int s : successors_[static_cast<std::size_t>(i)])
        if (--pending_[static_cast<std::size_t>(s)] == 0) {
          ready_.push(s);
          ++released;
        }
      if (--remaining_ == 0) work_ready_.notify_all();  // the caller may be waiting for the last node
      else wake_for(released);
    }
  }

  std::vector<int> order_;
  std::vector<std::vector<int>> successors_;
  std::vector<int> initial_, pending_;
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready_;
  std::size_t remaining_ = 0;
  const std::function<void(int)>* run_node_ = nullptr;
  std::exception_ptr error_;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::vector<std::thread> workers_;
};

}  // namespace

void check_inter_op_threads(int inter_op_threads) {
  if (inter_op_threads < 1)
    throw std::invalid_argument("inter_op_threads " + std::to_string(inter_op_threads) + ": expected at least 1");
}

int inter_op_threads_within(int requested, int cores, int intra_op_threads) {
  check_inter_op_threads(requested);
  if (cores < 1 || intra_op_threads < 1)
    throw std::invalid_argument("core budget " + std::to_string(cores) + " cores, " + std::to_string(intra_op_threads) +
                                " intra-op threads: expected at least 1 of each");
  return std::min(requested, std::max(1, cores / intra_op_threads));
}

int applied_inter_op_threads(int requested, int cores, bool device_backend, int intra_op_threads) {
  check_inter_op_threads(requested);
  if (device_backend) return 1;
  if (cores < 1) return requested;
  return inter_op_threads_within(requested, cores, intra_op_threads);
}

std::unique_ptr<Executor> make_executor(ExecutorKind kind, int inter_op_threads, std::vector<int> order,
                                        const std::vector<std::vector<int>>& predecessors) {
  if (kind == ExecutorKind::sequential) return std::make_unique<SequentialExecutor>(std::move(order));
  check_inter_op_threads(inter_op_threads);
  return std::make_unique<ParallelExecutor>(inter_op_threads, std::move(order), predecessors);
}

}  // namespace ablate::graph::static_graph
