#include "util/idle_call.hpp"

#include <wayland-server-core.h>

#include <utility>

#include "util/log.hpp"

namespace baton {

IdleCall::IdleCall(wl_event_loop* loop, std::function<void()> callback)
    : loop_(loop), callback_(std::move(callback)) {}

IdleCall::~IdleCall() {
  if (source_ != nullptr) wl_event_source_remove(source_);
}

void IdleCall::schedule() {
  if (source_ != nullptr) return;
  source_ = wl_event_loop_add_idle(loop_, &IdleCall::on_idle, this);
  if (source_ == nullptr) LOG_ERROR("wl_event_loop_add_idle failed");
}

void IdleCall::on_idle(void* data) {
  auto* self = static_cast<IdleCall*>(data);
  self->source_ = nullptr;                           // libwayland removes it after this returns
  std::function<void()> callback = self->callback_;  // the callback may destroy `self`
  callback();
}

}  // namespace baton
