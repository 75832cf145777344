// Workspaces 1..10: each window belongs to one; only the current one's
// windows are shown and can take focus.
#pragma once

namespace baton {

class Server;
class View;

class Workspaces {
 public:
  static constexpr int kCount = 10;

  explicit Workspaces(Server& server) : server_(server) {}
  Workspaces(const Workspaces&) = delete;
  Workspaces& operator=(const Workspaces&) = delete;

  [[nodiscard]] int current() const { return current_; }
  /// Shows workspace `n` and focuses its most recently focused window.
  void switch_to(int n);
  /// Switches to `view`'s workspace.
  void show(const View& view);
  /// Sends `view` to workspace `n`; it disappears if `n` is not current.
  void move_view(View& view, int n);
  /// Topmost mapped window of the current workspace, skipping `except`.
  [[nodiscard]] View* most_recent(const View* except = nullptr) const;

 private:
  void refocus();

  Server& server_;
  int current_ = 1;
};

}  // namespace baton
