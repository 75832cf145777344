// A weak reference to an object baton does not own through this pointer: it
// reads null once the object is gone, instead of dangling. The object derives
// from Weakable, whose destructor expires every Weak to it; nobody has to
// remember to clear pointers by hand.
#pragma once

#include <memory>

namespace baton {

template <typename T>
class Weak;

template <typename T>
class Weakable {
 public:
  Weakable(const Weakable&) = delete;
  Weakable& operator=(const Weakable&) = delete;

 protected:
  Weakable() = default;
  ~Weakable() = default;  // expires the Weaks: alive_ goes with it

 private:
  friend class Weak<T>;
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);
};

template <typename T>
class Weak {
 public:
  Weak() = default;
  Weak(T* object) { reset(object); }  // NOLINT(google-explicit-constructor): reads like a pointer

  Weak& operator=(T* object) {
    reset(object);
    return *this;
  }
  void reset(T* object = nullptr) {
    object_ = object;
    alive_.reset();
    if (object != nullptr) alive_ = static_cast<const Weakable<T>*>(object)->alive_;
  }

  /// The object, or null once it is gone (or was never set).
  [[nodiscard]] T* get() const { return alive_.expired() ? nullptr : object_; }
  T* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }
  bool operator==(const T* other) const { return get() == other; }

 private:
  T* object_ = nullptr;
  std::weak_ptr<const bool> alive_;
};

}  // namespace baton
