// Tensor: an n-dimensional array with a shape, a dtype, a device tag and 64-byte aligned
// storage from a counting allocator. Copies share storage (like torch.Tensor and a Caffe
// Blob's SyncedMemory); clone() makes a deep copy. Layout is row-major: NCHW for images,
// unless the tensor is channel-blocked (channel_block() = B > 0: oneDNN's nChw{B}c, the
// layout Intel's MKL builds of TensorFlow passed between their ops): a 4-D [N, C, H, W] with
// C a multiple of B stored as [N][C/B][H][W][B], element (n, c, h, w) at
// (((n * C/B + c/B) * H + h) * W + w) * B + c % B; with B = C that is NHWC (channels_last()).
// Same size, other order; only the ops that know it (kernels/contract/layout_check.h) take
// such a tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ablate::kernels {

enum class DType { f32, f64, i32, u8 };
enum class Device { cpu, cuda };

std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);
DType parse_dtype(const std::string& name);  // "f32" | "f64" | "i32" | "u8"; throws otherwise
const char* device_name(Device device);

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<std::uint8_t>() { return DType::u8; }

using Shape = std::vector<std::int64_t>;
std::string shape_string(const Shape& shape);  // "[64, 1, 28, 28]"
std::int64_t shape_numel(const Shape& shape);

// Counters of one allocator. live/peak are bytes currently held and the most ever held;
// allocations/deallocations count calls that reached the system.
struct AllocatorStats {
  std::int64_t live_bytes = 0;
  std::int64_t peak_bytes = 0;
  std::int64_t allocations = 0;
  std::int64_t deallocations = 0;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* ptr, std::size_t bytes) = 0;
  virtual AllocatorStats stats() const = 0;
  virtual void reset_peak() = 0;
  virtual Device device() const = 0;
};

// The process-wide host allocator: 64-byte aligned (blocks of 2 MiB or more 2 MiB-aligned on huge
// pages under --huge-pages madvise, kernels/huge_pages.h), thread-safe counters.
Allocator& cpu_allocator();

class Tensor {
 public:
  Tensor() = default;
  // Allocates zero-filled storage for `shape` (from `allocator`, default cpu_allocator()).
  explicit Tensor(Shape shape, DType dtype = DType::f32, Allocator* allocator = nullptr);
  // The same storage left as the allocator gives it (torch.empty): for a tensor an op is about
  // to write whole. Zero-filling every output is a pass over its memory that eager execution
  // pays per op (vit-tiny's dynamic step: a third of its time outside the ops).
  static Tensor uninitialized(Shape shape, DType dtype, Allocator* allocator = nullptr);

  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const;  // negative i counts from the end
  std::int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  std::size_t bytes() const { return static_cast<std::size_t>(numel_) * dtype_size(dtype_); }
  bool empty() const { return storage_ == nullptr; }
  // 0: plain row-major; B: channel-blocked as above.
  int channel_block() const { return channel_block_; }
  // One block of all C channels: nChw{C}c is NHWC (channels-last), stored [N][H][W][C].
  bool channels_last() const { return channel_block_ > 0 && ndim() == 4 && channel_block_ == shape_[1]; }
  // A view of the same storage declared in `block` layout (0: plain); throws unless block is 0
  // or the tensor is 4-D with a channel count that is a multiple of block.
  Tensor with_channel_block(int block) const;
  bool same_storage(const Tensor& other) const { return storage_ == other.storage_; }

  // Typed access; throws if T does not match dtype() or the tensor is not on the host.
  template <class T> T* data();
  template <class T> const T* data() const;
  void* raw_data();
  const void* raw_data() const;

  // A view of the same storage with another shape of equal numel; plain (a channel-blocked
  // tensor reshaped is refused unless the shape stays: its order is not row-major).
  Tensor reshaped(Shape shape) const;
  // A view of rows [begin, end) along dimension 0.
  Tensor slice0(std::int64_t begin, std::int64_t end) const;
  Tensor clone() const;
  void zero();
  // Copies values from `src` (same numel), converting between f32, f64, i32 and u8.
  void copy_from(const Tensor& src);
  // Element i as double, for tests and reporting (slow path).
  double at(std::int64_t i) const;
  void set(std::int64_t i, double value);

  std::string describe() const;  // "f32[64, 1, 28, 28]", "f32[128, 16, 32, 32] nChw16c"

 private:
  struct Storage;
  std::shared_ptr<Storage> storage_;
  std::size_t offset_bytes_ = 0;
  Shape shape_;
  std::int64_t numel_ = 0;
  DType dtype_ = DType::f32;
  int channel_block_ = 0;
  void check_type(DType wanted) const;
};

// Throws std::invalid_argument naming `what` unless a and b have the same shape.
void check_same_shape(const Tensor& a, const Tensor& b, const char* what);

}  // namespace ablate::kernels
