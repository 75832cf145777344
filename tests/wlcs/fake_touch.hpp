// A synthetic touchscreen over the whole layout, handed to the seat the way
// the backend's devices are. baton has no wl_touch yet (issue 25): the seat
// leaves it unused, so WLCS's touch tests fail for that reason alone.
#pragma once

#include <cstdint>

#include "util/wlr.hpp"

namespace baton {
class Server;
}

namespace baton::wlcs {

class FakeTouch {
 public:
  explicit FakeTouch(Server& server);
  ~FakeTouch();
  FakeTouch(const FakeTouch&) = delete;
  FakeTouch& operator=(const FakeTouch&) = delete;
  /// One finger, at layout coordinates.
  void down(double lx, double ly);
  void move(double lx, double ly);
  void up();

 private:
  void normalise(double lx, double ly, double* x, double* y) const;
  void frame();
  Server& server_;
  wlr_touch touch_{};
  uint32_t time_ = 0;
};

}  // namespace baton::wlcs
