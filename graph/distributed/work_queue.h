// A work queue over the ranks of an MPI job, for a distributed sweep (bench/experiments/sweep_runner.h):
// rank 0 holds the list of tasks and hands them out one at a time to whichever rank is free,
// and runs tasks itself between answering the others. A dynamic queue rather than a fixed split
// (task i on rank i mod N) because a sweep's runs differ in length by orders of magnitude
// (batch 16 against 256, Theano's f64 against Caffe's f32): a fixed split leaves ranks idle
// while one works through its long runs. Every result comes back to rank 0, the only rank that
// sees results (it writes the results file).
//
// Start: rank 0 waits for every other rank's first request and gives each a task before it
// takes one itself, so with at least N tasks every rank runs one. Messages (communicator.h):
//   rank r -> 0   "T\n" + result of task T ("-1\n" for the first request)
//   0 -> rank r   "T" (run task T), or "stop\n" + the closing text (no task left)
// Waiting ranks poll with sleeps, never MPI's busy wait, so they leave the cores to the runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ablate::graph::distributed {

// Runs a task on this rank and returns its result; it must call `serve` now and then while it
// works (every ~50 ms): on rank 0 that answers the other ranks; on every rank it stops the
// rank when its launcher is gone (communicator.h: exit_if_orphaned).
using TaskRunner = std::function<std::string(std::int64_t task, const std::function<void()>& serve)>;

// Collective over every rank. `tasks` is read on rank 0 only: the task numbers to run, in
// order. `done(task, rank, result)` runs on rank 0 for each task as it finishes. `closing()`
// runs on rank 0 after the last task; every rank returns its text. An exception on any rank
// prints "error: rank R: ..." and ends the whole job (abort(2)): the others would wait forever.
// One rank (no MPI job): runs every task in order.
std::string run_work_queue(const std::vector<std::int64_t>& tasks, const TaskRunner& run,
                           const std::function<void(std::int64_t task, int rank, const std::string& result)>& done,
                           const std::function<std::string()>& closing);

}  // namespace ablate::graph::distributed
