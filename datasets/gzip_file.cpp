// GzipFile over zlib's gzopen/gzread (transparent for raw files).
#include "datasets/gzip_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace ablate::datasets {

namespace {
gzFile as_gz(void* f) { return static_cast<gzFile>(f); }
}  // namespace

GzipFile::GzipFile(const std::string& path) : path_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error("cannot open " + path + ": it is a directory, expected a data file");
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error("cannot open " + path + ": " +
                             (errno ? std::strerror(errno) : "out of memory in zlib"));
  gzbuffer(f, 1 << 18);
  file_ = f;
}

GzipFile::~GzipFile() {
  if (file_) gzclose(as_gz(file_));
}

bool GzipFile::compressed() const { return gzdirect(as_gz(file_)) == 0; }

std::size_t GzipFile::read(void* dst, std::size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  while (done < n) {
    unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, std::size_t{1} << 30));
    int got = gzread(as_gz(file_), out + done, chunk);
    int errnum = Z_OK;
    const char* message = got < static_cast<int>(chunk) ? gzerror(as_gz(file_), &errnum) : "";
    if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
      std::uint64_t at = position_ + done;
      if (errnum == Z_BUF_ERROR)
        throw std::runtime_error(path_ + ": gzip data is cut off after " + std::to_string(at) +
                                 " decompressed bytes (" + message + "); the download is incomplete");
      throw std::runtime_error(path_ + ": cannot read after " + std::to_string(at) + " bytes: " +
                               (errnum == Z_ERRNO ? std::strerror(errno) : message));
    }
    done += static_cast<std::size_t>(got);
    if (got < static_cast<int>(chunk)) break;  // end of data
  }
  position_ += done;
  return done;
}

std::uint64_t GzipFile::count_rest() {
  std::vector<unsigned char> scratch(1 << 16);
  std::uint64_t total = 0;
  for (;;) {
    std::size_t got = read(scratch.data(), scratch.size());
    total += got;
    if (got < scratch.size()) return total;
  }
}

}  // namespace ablate::datasets
