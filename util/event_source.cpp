#include "util/event_source.hpp"

namespace baton {

int EventSource::on_timer(void* data) {
  auto* self = static_cast<EventSource*>(data);
  Callback callback = self->callback_;  // the callback may destroy `self`
  callback();
  return 0;
}

int EventSource::on_fd(int /*fd*/, uint32_t mask, void* data) {
  auto* self = static_cast<EventSource*>(data);
  FdCallback callback = self->fd_callback_;
  callback(mask);
  return 0;
}

std::unique_ptr<EventSource> EventSource::timer(wl_event_loop* loop, Callback callback) {
  auto source = std::make_unique<EventSource>();
  source->callback_ = std::move(callback);
  source->source_ = wl_event_loop_add_timer(loop, &EventSource::on_timer, source.get());
  if (source->source_ == nullptr) return nullptr;
  return source;
}

std::unique_ptr<EventSource> EventSource::fd(wl_event_loop* loop, int fd, uint32_t mask,
                                             FdCallback callback) {
  auto source = std::make_unique<EventSource>();
  source->fd_callback_ = std::move(callback);
  source->source_ = wl_event_loop_add_fd(loop, fd, mask, &EventSource::on_fd, source.get());
  if (source->source_ == nullptr) return nullptr;
  return source;
}

std::unique_ptr<EventSource> EventSource::signal(wl_event_loop* loop, int signal,
                                                 Callback callback) {
  auto source = std::make_unique<EventSource>();
  source->callback_ = std::move(callback);
  source->source_ = wl_event_loop_add_signal(
      loop, signal, [](int, void* data) { return on_timer(data); }, source.get());
  if (source->source_ == nullptr) return nullptr;
  return source;
}

}  // namespace baton
