// How a Backend op runs its implementation once the contract passed (and the layout rule,
// layout_check.h): alone when no observer
// is set, else between the observer's begin and end (kernels/op_observer.h). The FLOPs are
// counted only for an observer. Private to kernels/contract/.
#pragma once

#include <type_traits>

#include "kernels/backend.h"
#include "kernels/contract/layout_check.h"

namespace ablate::kernels {

// Returns what body() returns; flops() gives the call's floating-point operations.
// `writes` names the tensors the op writes, for the observer (kernels/op_observer.h).
template <class Flops, class Body>
decltype(auto) observed_call(const Backend& backend, Op op, const OpWrites& writes, Flops&& flops, Body&& body) {
  check_channel_layouts(backend, op, writes);
  OpObserver* observer = backend.observer();
  if (observer == nullptr) return body();
  OpCall call{op, flops(), 0, writes};
  observer->begin(call);
  // end(call, false) when the implementation throws; end(call, true) outside the try, so that
  // an observer's own failure (a device error while it synchronizes) is not reported twice.
  auto failed = [&] { observer->end(call, false); };
  if constexpr (std::is_void_v<decltype(body())>) {
    try {
      body();
    } catch (...) {
      failed();
      throw;
    }
    observer->end(call, true);
  } else {
    auto result = [&] {
      try {
        return body();
      } catch (...) {
        failed();
        throw;
      }
    }();
    if constexpr (std::is_arithmetic_v<decltype(result)>) {
      call.result = static_cast<double>(result);
      call.returns = true;
    }
    observer->end(call, true);
    return result;
  }
}

// An op without floating-point work worth counting (everything but GEMMs and convolutions).
template <class Body> decltype(auto) observed_call(const Backend& backend, Op op, const OpWrites& writes, Body&& body) {
  return observed_call(backend, op, writes, [] { return 0.0; }, std::forward<Body>(body));
}

}  // namespace ablate::kernels
