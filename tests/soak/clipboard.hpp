// A soak member's clipboard, through ext-data-control-v1: the protocol
// clipboard managers use, which needs no keyboard focus, so any member of the
// crowd can copy and paste while others come and go. A paste is a real
// transfer: baton asks the selection's owner to write into a pipe the paster
// reads; an owner killed mid-transfer leaves the paster an early end of file.
#pragma once

#include <wayland-client.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/unique_fd.hpp"

struct ext_data_control_device_v1;
struct ext_data_control_manager_v1;
struct ext_data_control_offer_v1;
struct ext_data_control_source_v1;

namespace baton::test {

class Harness;

/// Copies and pastes, counted across every member.
struct ClipboardCounts {
  int copies = 0;
  int pastes_started = 0;
  int pastes_read = 0;       // to the end, with the text a member copied
  int pastes_cut_short = 0;  // the owner left before it finished writing
};

class Clipboard {
 public:
  /// Binds the manager on `display` (a connection of `harness`, with a
  /// registry of its own) for `seat`.
  Clipboard(Harness& harness, wl_display* display, wl_seat* seat, ClipboardCounts& counts);
  ~Clipboard();
  Clipboard(const Clipboard&) = delete;
  Clipboard& operator=(const Clipboard&) = delete;

  /// Whether baton offered the protocol (the soak fails when it did not).
  [[nodiscard]] bool ready() const { return device_ != nullptr; }
  /// Takes the selection with `text`.
  void copy(const std::string& text);
  /// Asks for the current selection, if any, as text.
  void paste();
  /// Reads what pastes have received so far (never blocks).
  void poll();

 private:
  friend struct ClipboardListeners;
  void forget_offer(ext_data_control_offer_v1* offer);
  struct Paste {
    UniqueFd pipe;
    std::string text;
  };

  ClipboardCounts& counts_;
  wl_registry* registry_ = nullptr;
  ext_data_control_manager_v1* manager_ = nullptr;
  ext_data_control_device_v1* device_ = nullptr;
  // Sources baton has not cancelled yet, each with its text: an older one
  // may still be asked to send.
  std::vector<std::pair<ext_data_control_source_v1*, std::string>> sources_;
  ext_data_control_offer_v1* selection_ = nullptr;
  std::vector<ext_data_control_offer_v1*> offers_;  // every offer not yet destroyed
  std::vector<Paste> pastes_;
};

}  // namespace baton::test
