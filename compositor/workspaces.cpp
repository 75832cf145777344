#include "compositor/workspaces.hpp"

#include <ctime>

#include "compositor/log.hpp"
#include "compositor/seat.hpp"
#include "compositor/server.hpp"
#include "compositor/view.hpp"

namespace baton {

void Workspaces::switch_to(int n) {
  if (n < 1 || n > kCount) return;
  current_ = n;
  for (const auto& v : server_.views()) v->set_visible(v->workspace() == current_);
  LOG_DEBUG("workspace %d", n);
  refocus();
}

void Workspaces::show(const View& view) { switch_to(view.workspace()); }

void Workspaces::move_view(View& view, int n) {
  if (n < 1 || n > kCount) return;
  view.set_workspace(n);
  view.set_visible(n == current_);
  if (n != current_ && server_.focused_view() == &view) refocus();
}

View* Workspaces::most_recent(const View* except) const {
  for (const auto& v : server_.views())
    if (v.get() != except && v->mapped() && v->managed() && v->workspace() == current_) return v.get();
  return nullptr;
}

void Workspaces::refocus() {
  server_.focus_view(most_recent());
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  server_.seat().refresh_pointer_focus(
      static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000));
}

}  // namespace baton
