// Transparent huge pages for the host tensors (huge_pages.h).
#include "kernels/huge_pages.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ablate::kernels {
namespace {

std::atomic<HugePages> policy{HugePages::system};
std::atomic<std::int64_t> marked{0}, refused{0};

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

HugePages parse_huge_pages(const std::string& text, const std::string& what) {
  if (text == "system") return HugePages::system;
  if (text == "madvise") return HugePages::madvise;
  throw std::invalid_argument(what + " '" + text +
                              "': expected system (blocks as malloc gives them) or madvise (blocks of 2 MiB or more on huge pages)");
}

const char* huge_pages_name(HugePages p) { return p == HugePages::madvise ? "madvise" : "system"; }

void set_host_huge_pages(HugePages p) { policy.store(p); }
HugePages host_huge_pages() { return policy.load(); }

void* allocate_host_block(std::size_t bytes) {
  std::size_t rounded = round_up(bytes == 0 ? 1 : bytes, 64);
  if (policy.load() != HugePages::madvise || rounded < kHugePageBytes) return std::aligned_alloc(64, rounded);
  rounded = round_up(rounded, kHugePageBytes);
  void* p = std::aligned_alloc(kHugePageBytes, rounded);
  if (!p) return nullptr;
  // Before the first touch: the pages are faulted in as huge pages where the kernel can.
  if (madvise(p, rounded, MADV_HUGEPAGE) == 0)
    marked.fetch_add(1);
  else
    refused.fetch_add(1);
  return p;
}

HugePageHints host_huge_page_hints() { return {marked.load(), refused.load()}; }

std::string transparent_huge_pages_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!in || !std::getline(in, line)) return "unavailable";
  auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unavailable";
  return line.substr(open + 1, close - open - 1);
}

std::int64_t process_huge_page_bytes() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (in && std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) != 0) continue;
    std::istringstream fields(line.substr(14));
    std::int64_t kib = -1;
    if (fields >> kib) return kib * 1024;
  }
  return -1;
}

}  // namespace ablate::kernels
