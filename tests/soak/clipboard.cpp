#include "tests/soak/clipboard.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ext-data-control-v1-client-protocol.h"
#include "tests/support/harness.hpp"

namespace baton::test {

constexpr const char* kMime = "text/plain;charset=utf-8";

struct ClipboardListeners {
  static void global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                     uint32_t) {
    auto* self = static_cast<Clipboard*>(data);
    if (std::strcmp(interface, ext_data_control_manager_v1_interface.name) == 0)
      self->manager_ = static_cast<ext_data_control_manager_v1*>(
          wl_registry_bind(registry, name, &ext_data_control_manager_v1_interface, 1));
  }
  static void data_offer(void* data, ext_data_control_device_v1*,
                         ext_data_control_offer_v1* offer) {
    static const ext_data_control_offer_v1_listener listener = {
        [](void*, ext_data_control_offer_v1*, const char*) {}};
    ext_data_control_offer_v1_add_listener(offer, &listener, nullptr);
    static_cast<Clipboard*>(data)->offers_.push_back(offer);
  }
  static void selection(void* data, ext_data_control_device_v1*, ext_data_control_offer_v1* offer) {
    auto* self = static_cast<Clipboard*>(data);
    // The previous selection's offer is done with: its owner can go.
    self->forget_offer(self->selection_);
    self->selection_ = offer;
  }
  static void send(void* data, ext_data_control_source_v1* source, const char*, int32_t fd) {
    auto* self = static_cast<Clipboard*>(data);
    for (const auto& [owned, text] : self->sources_) {
      if (owned != source) continue;
      // Short text into an empty pipe: the write never blocks.
      const ssize_t written = write(fd, text.data(), text.size());
      (void)written;
    }
    close(fd);
  }
  static void cancelled(void* data, ext_data_control_source_v1* source) {
    auto* self = static_cast<Clipboard*>(data);
    std::erase_if(self->sources_, [source](const auto& s) { return s.first == source; });
    ext_data_control_source_v1_destroy(source);
  }
};

void Clipboard::forget_offer(ext_data_control_offer_v1* offer) {
  if (offer == nullptr) return;
  std::erase(offers_, offer);
  ext_data_control_offer_v1_destroy(offer);
}

Clipboard::Clipboard(Harness& harness, wl_display* display, wl_seat* seat, ClipboardCounts& counts)
    : counts_(counts) {
  registry_ = wl_display_get_registry(display);
  static const wl_registry_listener registry_listener = {ClipboardListeners::global,
                                                         [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry_, &registry_listener, this);
  harness.sync();  // the globals (server and client share this thread)
  if (manager_ == nullptr || seat == nullptr) return;
  device_ = ext_data_control_manager_v1_get_data_device(manager_, seat);
  static const ext_data_control_device_v1_listener device_listener = {
      ClipboardListeners::data_offer, ClipboardListeners::selection,
      [](void*, ext_data_control_device_v1*) {},  // finished
      [](void* data, ext_data_control_device_v1*, ext_data_control_offer_v1* offer) {
        // primary selection: not used here
        static_cast<Clipboard*>(data)->forget_offer(offer);
      }};
  ext_data_control_device_v1_add_listener(device_, &device_listener, this);
}

Clipboard::~Clipboard() {
  for (ext_data_control_offer_v1* offer : offers_) ext_data_control_offer_v1_destroy(offer);
  for (const auto& source : sources_) ext_data_control_source_v1_destroy(source.first);
  if (device_ != nullptr) ext_data_control_device_v1_destroy(device_);
  if (manager_ != nullptr) ext_data_control_manager_v1_destroy(manager_);
  wl_registry_destroy(registry_);
}

void Clipboard::copy(const std::string& text) {
  if (device_ == nullptr) return;
  static const ext_data_control_source_v1_listener listener = {ClipboardListeners::send,
                                                               ClipboardListeners::cancelled};
  ext_data_control_source_v1* source = ext_data_control_manager_v1_create_data_source(manager_);
  ext_data_control_source_v1_add_listener(source, &listener, this);
  ext_data_control_source_v1_offer(source, kMime);
  ext_data_control_device_v1_set_selection(device_, source);
  sources_.emplace_back(source, text);
  ++counts_.copies;
}

void Clipboard::paste() {
  if (selection_ == nullptr) return;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
  ext_data_control_offer_v1_receive(selection_, kMime, fds[1]);
  close(fds[1]);
  pastes_.push_back({UniqueFd(fds[0]), {}});
  ++counts_.pastes_started;
}

void Clipboard::poll() {
  for (auto it = pastes_.begin(); it != pastes_.end();) {
    char buffer[256];
    const ssize_t got = read(it->pipe.get(), buffer, sizeof(buffer));
    if (got > 0) {
      it->text.append(buffer, static_cast<size_t>(got));
      continue;
    }
    if (got < 0 && errno == EAGAIN) {
      ++it;
      continue;
    }
    // End of file: whole when it is a text some member copied.
    if (it->text.rfind("baton-soak ", 0) == 0 && it->text.back() == '.')
      ++counts_.pastes_read;
    else
      ++counts_.pastes_cut_short;
    it = pastes_.erase(it);
  }
}

}  // namespace baton::test
