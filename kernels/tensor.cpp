// Tensor storage, views and conversions; the counting 64-byte aligned host allocator.
#include "kernels/tensor.h"

#include "kernels/huge_pages.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>

namespace ablate::kernels {

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::u8: return 1;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::u8: return "u8";
  }
  return "?";
}

DType parse_dtype(const std::string& name) {
  if (name == "f32" || name == "float32") return DType::f32;
  if (name == "f64" || name == "float64") return DType::f64;
  if (name == "i32") return DType::i32;
  if (name == "u8") return DType::u8;
  throw std::invalid_argument("precision '" + name + "' is not known; expected f32 or f64");
}

const char* device_name(Device device) { return device == Device::cpu ? "cpu" : "cuda"; }

std::string shape_string(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

std::int64_t shape_numel(const Shape& shape) {
  for (auto d : shape)
    if (d < 0) throw std::invalid_argument("shape " + shape_string(shape) + " has a negative dimension");
  std::int64_t n = 1;
  for (auto d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw std::invalid_argument("shape " + shape_string(shape) + " has more than 2^63 - 1 elements");
  return n;
}

namespace {

class CountingCpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t bytes) override {
    void* p = allocate_host_block(bytes);
    if (!p) throw std::bad_alloc();
    std::int64_t live = live_.fetch_add(static_cast<std::int64_t>(bytes)) + static_cast<std::int64_t>(bytes);
    std::int64_t peak = peak_.load();
    while (live > peak && !peak_.compare_exchange_weak(peak, live)) {
    }
    allocations_.fetch_add(1);
    return p;
  }
  void deallocate(void* ptr, std::size_t bytes) override {
    std::free(ptr);
    live_.fetch_sub(static_cast<std::int64_t>(bytes));
    deallocations_.fetch_add(1);
  }
  AllocatorStats stats() const override {
    return {live_.load(), peak_.load(), allocations_.load(), deallocations_.load()};
  }
  void reset_peak() override { peak_.store(live_.load()); }
  Device device() const override { return Device::cpu; }

 private:
  std::atomic<std::int64_t> live_{0}, peak_{0}, allocations_{0}, deallocations_{0};
};

}  // namespace

Allocator& cpu_allocator() {
  static CountingCpuAllocator allocator;
  return allocator;
}

struct Tensor::Storage {
  Allocator* allocator;
  void* ptr;
  std::size_t bytes;
  Storage(Allocator* a, std::size_t n) : allocator(a), ptr(a->allocate(n)), bytes(n) {}
  ~Storage() { allocator->deallocate(ptr, bytes); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
};

Tensor::Tensor(Shape shape, DType dtype, Allocator* allocator) : Tensor(uninitialized(std::move(shape), dtype, allocator)) {
  if (storage_->allocator->device() == Device::cpu) std::memset(storage_->ptr, 0, bytes());
}

Tensor Tensor::uninitialized(Shape shape, DType dtype, Allocator* allocator) {
  Tensor t;
  t.shape_ = std::move(shape);
  t.numel_ = shape_numel(t.shape_);
  t.dtype_ = dtype;
  // bytes() must not wrap around size_t (nor the allocator's rounding up to 64).
  if (static_cast<std::uint64_t>(t.numel_) > (PTRDIFF_MAX - 64) / dtype_size(dtype))
    throw std::length_error("tensor " + t.describe() + " would need more than 2^63 bytes");
  t.storage_ = std::make_shared<Storage>(allocator ? allocator : &cpu_allocator(), t.bytes());
  return t;
}

std::int64_t Tensor::dim(int i) const {
  int n = ndim();
  int j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    throw std::out_of_range("dimension " + std::to_string(i) + " of a tensor " + describe());
  return shape_[static_cast<std::size_t>(j)];
}

Device Tensor::device() const { return storage_ ? storage_->allocator->device() : Device::cpu; }

void Tensor::check_type(DType wanted) const {
  if (!storage_) throw std::logic_error("access to an empty tensor");
  if (wanted != dtype_)
    throw std::invalid_argument(std::string("tensor ") + describe() + " accessed as " + dtype_name(wanted));
}

template <class T> T* Tensor::data() {
  check_type(dtype_of<T>());
  return reinterpret_cast<T*>(static_cast<char*>(storage_->ptr) + offset_bytes_);
}
template <class T> const T* Tensor::data() const {
  check_type(dtype_of<T>());
  return reinterpret_cast<const T*>(static_cast<const char*>(storage_->ptr) + offset_bytes_);
}
template float* Tensor::data<float>();
template double* Tensor::data<double>();
template std::int32_t* Tensor::data<std::int32_t>();
template std::uint8_t* Tensor::data<std::uint8_t>();
template const float* Tensor::data<float>() const;
template const double* Tensor::data<double>() const;
template const std::int32_t* Tensor::data<std::int32_t>() const;
template const std::uint8_t* Tensor::data<std::uint8_t>() const;

void* Tensor::raw_data() {
  if (!storage_) return nullptr;
  return static_cast<char*>(storage_->ptr) + offset_bytes_;
}
const void* Tensor::raw_data() const {
  if (!storage_) return nullptr;
  return static_cast<const char*>(storage_->ptr) + offset_bytes_;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_numel(shape) != numel_)
    throw std::invalid_argument("cannot reshape " + describe() + " to " + shape_string(shape));
  if (channel_block_ != 0 && shape != shape_)
    throw std::invalid_argument("cannot reshape the channel-blocked " + describe() + " to " + shape_string(shape) +
                                ": copy it to a plain tensor first");
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::with_channel_block(int block) const {
  if (block < 0 || (block > 0 && (ndim() != 4 || shape_[1] % block != 0)))
    throw std::invalid_argument("a tensor " + describe() + " cannot be channel-blocked by " + std::to_string(block) +
                                ": expected a 4-D [N, C, H, W] with C a multiple of the block");
  Tensor t = *this;
  t.channel_block_ = block;
  return t;
}

Tensor Tensor::slice0(std::int64_t begin, std::int64_t end) const {
  if (ndim() == 0 || begin < 0 || end < begin || end > shape_[0])
    throw std::out_of_range("slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " + describe());
  Tensor t = *this;
  std::int64_t row = shape_[0] ? numel_ / shape_[0] : 0;
  t.offset_bytes_ += static_cast<std::size_t>(begin * row) * dtype_size(dtype_);
  t.shape_[0] = end - begin;
  t.numel_ = (end - begin) * row;
  return t;
}

Tensor Tensor::clone() const {
  if (!storage_) return {};
  Tensor t(shape_, dtype_, storage_->allocator);
  t.channel_block_ = channel_block_;
  if (device() == Device::cpu) std::memcpy(t.raw_data(), raw_data(), bytes());
  else throw std::logic_error("Tensor::clone of a device tensor: use the backend's copy");
  return t;
}

void Tensor::zero() {
  if (storage_ && device() == Device::cpu) std::memset(raw_data(), 0, bytes());
}

double Tensor::at(std::int64_t i) const {
  if (i < 0 || i >= numel_) throw std::out_of_range("index " + std::to_string(i) + " of " + describe());
  switch (dtype_) {
    case DType::f32: return data<float>()[i];
    case DType::f64: return data<double>()[i];
    case DType::i32: return data<std::int32_t>()[i];
    case DType::u8: return data<std::uint8_t>()[i];
  }
  return 0;
}

void Tensor::set(std::int64_t i, double value) {
  if (i < 0 || i >= numel_) throw std::out_of_range("index " + std::to_string(i) + " of " + describe());
  switch (dtype_) {
    case DType::f32: data<float>()[i] = static_cast<float>(value); break;
    case DType::f64: data<double>()[i] = value; break;
    case DType::i32: data<std::int32_t>()[i] = static_cast<std::int32_t>(value); break;
    case DType::u8: data<std::uint8_t>()[i] = static_cast<std::uint8_t>(value); break;
  }
}

namespace {
template <class Dst, class Src> void convert(Dst* dst, const Src* src, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(src[i]);
}
template <class Dst> void convert_from(Dst* dst, const Tensor& src) {
  std::int64_t n = src.numel();
  switch (src.dtype()) {
    case DType::f32: convert(dst, src.data<float>(), n); break;
    case DType::f64: convert(dst, src.data<double>(), n); break;
    case DType::i32: convert(dst, src.data<std::int32_t>(), n); break;
    case DType::u8: convert(dst, src.data<std::uint8_t>(), n); break;
  }
}
}  // namespace

void Tensor::copy_from(const Tensor& src) {
  if (src.numel() != numel_)
    throw std::invalid_argument("copy of " + src.describe() + " into " + describe() + ": sizes differ");
  if (src.channel_block() != channel_block_)
    throw std::invalid_argument("copy of " + src.describe() + " into " + describe() +
                                ": the channel layouts differ (Backend::copy converts them)");
  if (src.dtype() == dtype_) {
    std::memcpy(raw_data(), src.raw_data(), bytes());
    return;
  }
  switch (dtype_) {
    case DType::f32: convert_from(data<float>(), src); break;
    case DType::f64: convert_from(data<double>(), src); break;
    case DType::i32: convert_from(data<std::int32_t>(), src); break;
    case DType::u8: convert_from(data<std::uint8_t>(), src); break;
  }
}

std::string Tensor::describe() const {
  std::string s = std::string(dtype_name(dtype_)) + shape_string(shape_);
  if (channel_block_ != 0) s += " nChw" + std::to_string(channel_block_) + "c";
  if (channels_last()) s += " (NHWC)";
  return s;
}

void check_same_shape(const Tensor& a, const Tensor& b, const char* what) {
  if (a.shape() != b.shape())
    throw std::invalid_argument(std::string(what) + ": shapes differ, " + a.describe() + " vs " + b.describe());
}

}  // namespace ablate::kernels
