// Sole ownership of a wlroots object that has a destroy function.
//
// wlroots 0.19 asserts that nobody still listens to an object it destroys.
// Declared before the Listeners on its signals, an Owned member is destroyed
// after them, so the order is right by construction. It converts to the raw
// pointer, so wlroots calls take it unchanged.
#pragma once

#include <utility>

namespace baton {

template <typename T, void (*Destroy)(T*)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(T* object) : object_(object) {}
  ~Owned() { reset(); }

  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }

  /// Gives the object up without destroying it (it was destroyed elsewhere).
  T* release() { return std::exchange(object_, nullptr); }
  void reset() {
    if (object_ != nullptr) Destroy(std::exchange(object_, nullptr));
  }
  [[nodiscard]] T* get() const { return object_; }
  operator T*() const { return object_; }  // NOLINT(google-explicit-constructor)
  T* operator->() const { return object_; }

 private:
  T* object_ = nullptr;
};

}  // namespace baton
