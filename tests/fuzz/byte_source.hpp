// The fuzzer's input read as a stream of choices. Past the end every read
// gives zero, so any byte string decodes to some sequence of actions, and
// small mutations of an input change only the choices near them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace baton::fuzz {

class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  [[nodiscard]] bool empty() const { return at_ >= size_; }
  uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  uint64_t u64() { return static_cast<uint64_t>(u32()) | (static_cast<uint64_t>(u32()) << 32); }
  /// Up to `count` bytes of the input as they are (fewer near its end).
  std::string bytes(size_t count) {
    const size_t n = count < size_ - at_ ? count : size_ - at_;  // at_ never passes size_
    std::string out(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace baton::fuzz
