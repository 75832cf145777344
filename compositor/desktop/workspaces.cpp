#include "compositor/desktop/workspaces.hpp"

#include <algorithm>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

Workspaces::Workspaces(Windows& windows)
    : windows_(windows),
      output_added_(
          windows.context().outputs.added.connect([this](Output& o) { output_added(o); })),
      output_removed_(
          windows.context().outputs.removed.connect([this](Output& o) { output_removed(o); })),
      output_disabled_(
          windows.context().outputs.disabled.connect([this](Output& o) { evacuate(o); })) {}

int Workspaces::current(const Output* output) const {
  for (const auto& [o, n] : current_)
    if (o == output) return n;
  return 1;
}

Output* Workspaces::focused_output() const {
  if (focused_output_) return focused_output_.get();
  const wlr_cursor* cursor = windows_.context().cursor;
  return windows_.context().outputs.at(cursor->x, cursor->y);
}

void Workspaces::focus_output(Output* output) {
  if (output != nullptr) focused_output_ = output;
}

void Workspaces::pointer_on(Output* output) {
  // Only crossing onto another output moves the focus there: pointer
  // jitter must not undo a keyboard focus change.
  if (output == pointer_output_) return;
  pointer_output_ = output;
  focus_output(output);
}

void Workspaces::switch_to(int n) {
  if (Output* output = focused_output()) switch_to(*output, n);
}

void Workspaces::switch_to(Output& output, int n) {
  if (n < 1 || n > kCount) return;
  auto it = std::find_if(current_.begin(), current_.end(),
                         [&](const auto& entry) { return entry.first == &output; });
  if (it == current_.end())
    current_.emplace_back(&output, n);
  else
    it->second = n;
  for (const auto& v : windows_.views())
    if (v->output() == &output) v->set_visible(v->workspace() == n);
  focused_output_ = &output;
  LOG_DEBUG("workspace %d on %s", n, output.wlr()->name);
  refocus(&output);
}

void Workspaces::show(const View& view) {
  if (view.output() != nullptr && current(view.output()) != view.workspace())
    switch_to(*view.output(), view.workspace());
}

void Workspaces::move_view(View& view, int n) {
  if (n < 1 || n > kCount) return;
  view.set_workspace(n);
  view.set_visible(n == current(view.output()));
  if (!view.visible() && windows_.focused() == &view) refocus(view.output());
}

void Workspaces::place(View& view) {
  Rect f = view.frame();
  Output* output = windows_.context().outputs.at(f.x + f.width / 2.0, f.y + f.height / 2.0);
  if (output == nullptr) return;
  if (output != view.output()) {
    view.set_output(output);
    view.set_workspace(current(output));
    if (windows_.focused() == &view) focused_output_ = output;
  }
  // A window mapped again on a workspace not shown stays hidden.
  view.set_visible(view.workspace() == current(output));
}

View* Workspaces::most_recent(const Output* output, const View* except) const {
  for (const auto& v : windows_.views())
    if (v.get() != except && v->mapped() && v->managed() && v->output() == output &&
        v->workspace() == current(output))
      return v.get();
  return nullptr;
}

void Workspaces::output_added(Output& output) {
  // An output back (after a VT switch, a replug) shows the workspace it did.
  if (auto it = current_when_gone_.find(output.wlr()->name); it != current_when_gone_.end()) {
    current_.emplace_back(&output, it->second);
    current_when_gone_.erase(it);
  }
  // Windows left without an output (the last one went away) come here, and
  // stay where they were if that is on this output.
  wlr_box box{};
  wlr_output_layout_get_box(windows_.context().outputs.layout(), output.wlr(), &box);
  for (const auto& v : windows_.views()) {
    if (!v->mapped() || v->output() != nullptr) continue;
    const Rect frame = v->frame();
    const bool inside = frame.x >= box.x && frame.y >= box.y &&
                        frame.x + frame.width <= box.x + box.width &&
                        frame.y + frame.height <= box.y + box.height;
    if (!inside) v->move_frame_to(box.x, box.y + v->title_bar_height());
    v->set_output(&output);
    v->set_visible(v->workspace() == current(&output));
  }
}

void Workspaces::output_removed(Output& output) {
  current_when_gone_[output.wlr()->name] = current(&output);
  std::erase_if(current_, [&](const auto& entry) { return entry.first == &output; });
  // A VT switch away takes every output and brings them back after it: the
  // windows wait where they are instead of crowding onto the last output.
  if (wlr_session* session = windows_.context().session; session != nullptr && !session->active) {
    for (const auto& v : windows_.views())
      if (v->output() == &output) v->set_output(nullptr);
    if (focused_output_ == &output) focused_output_ = nullptr;
    if (pointer_output_ == &output) pointer_output_ = nullptr;
    return;
  }
  evacuate(output);
}

void Workspaces::evacuate(Output& output) {
  // Another output, one that is on if there is one.
  Output* target = nullptr;
  for (Output* o : windows_.context().outputs.all())
    if (o != &output && (target == nullptr || (!target->wlr()->enabled && o->wlr()->enabled)))
      target = o;
  if (focused_output_ == &output) focused_output_ = target;
  if (pointer_output_ == &output) pointer_output_ = target;
  wlr_box box{};
  if (target != nullptr)
    wlr_output_layout_get_box(windows_.context().outputs.layout(), target->wlr(), &box);
  bool lost_focus = false;
  for (const auto& v : windows_.views()) {
    if (v->output() != &output) continue;
    v->set_output(target);
    if (target == nullptr) continue;
    // Its workspace number stays; it shows if that is current there.
    v->move_frame_to(box.x, box.y + v->title_bar_height());
    v->set_visible(v->workspace() == current(target));
    lost_focus |= windows_.focused() == v.get() && !v->visible();
  }
  if (lost_focus) refocus(target);
  wlr_cursor* cursor = windows_.context().cursor;
  // A pointer left over the dark output goes where the windows went.
  if (target != nullptr && windows_.context().outputs.at(cursor->x, cursor->y) == &output) {
    wlr_box box{};
    wlr_output_layout_get_box(windows_.context().outputs.layout(), target->wlr(), &box);
    wlr_cursor_warp(cursor, nullptr, box.x + box.width / 2.0, box.y + box.height / 2.0);
    rearranged.emit();
  }
}

void Workspaces::refocus(const Output* output) {
  windows_.focus(most_recent(output));
  rearranged.emit();
}

}  // namespace baton
