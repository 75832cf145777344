// Owners of memory that C libraries hand over with malloc (libdrm's device
// names, xcb's replies): freed with free() when the owner goes.
#pragma once

#include <cstdlib>
#include <memory>

namespace baton {

struct FreeDeleter {
  void operator()(void* memory) const { std::free(memory); }
};
template <typename T>
using MallocPtr = std::unique_ptr<T, FreeDeleter>;

}  // namespace baton
