// `ablate compare`'s exit status: 3 (with a line on stderr) when any framework's run failed,
// else 0; a framework that was not run (a row saying why) is no failure. The table shows every row.
#include <cstdio>

#include "bench/cli/comparison.h"

namespace ablate::bench::cli {

int comparison_status(const std::vector<experiments::CompareRow>& rows) {
  std::size_t failed = 0;
  for (const auto& r : rows) failed += r.state == "failed";
  if (failed == 0) return 0;
  std::fprintf(stderr, "error: %zu of %zu framework runs failed (see the table)\n", failed, rows.size());
  return 3;
}

}  // namespace ablate::bench::cli
