#include "tests/fuzz/wire_client.hpp"

#include <sys/socket.h>
#include <wayland-client-protocol.h>
#include <wayland-server-core.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace baton::fuzz {
namespace {

// What one sendmsg may carry: libwayland reads at most 28 fds per message
// batch (its MAX_FDS_OUT); more would be cut off by the kernel.
constexpr size_t kMaxFdsPerSend = 28;
// A client that keeps writing to a server that is not reading: past this the
// fuzzer's requests are dropped rather than queued without bound here.
constexpr size_t kMaxQueued = size_t{256} * 1024;
// Event opcodes, in wayland.xml's order (the client header names only requests).
constexpr uint32_t kDisplayError = 0, kDisplayDeleteId = 1;
constexpr uint32_t kRegistryGlobal = 0, kRegistryGlobalRemove = 1;

void put_u32(std::vector<uint8_t>& out, uint32_t value) {
  uint8_t bytes[4];
  std::memcpy(bytes, &value, 4);
  out.insert(out.end(), bytes, bytes + 4);
}

void put_padded(std::vector<uint8_t>& out, const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
  out.resize(out.size() + (4 - size % 4) % 4, 0);
}

uint32_t get_u32(const uint8_t* data) {
  uint32_t value;
  std::memcpy(&value, data, 4);
  return value;
}

}  // namespace

std::string signature_types(const wl_message& message) {
  std::string types;
  for (const char* c = message.signature; *c != '\0'; ++c)
    if (*c != '?' && (*c < '0' || *c > '9')) types += *c;
  return types;
}

bool nullable(const wl_message& message, size_t index) {
  size_t seen = 0;
  bool question = false;
  for (const char* c = message.signature; *c != '\0'; ++c) {
    if (*c == '?') {
      question = true;
      continue;
    }
    if (*c >= '0' && *c <= '9') continue;
    if (seen++ == index) return question;
    question = false;
  }
  return false;
}

uint32_t since_version(const wl_message& message) {
  uint32_t since = 0;
  for (const char* c = message.signature; *c >= '0' && *c <= '9'; ++c)
    since = since * 10 + static_cast<uint32_t>(*c - '0');
  return std::max<uint32_t>(since, 1);
}

WireClient::WireClient(wl_display* display) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error("socketpair failed");
  socket_.reset(fds[1]);
  server_side_ = wl_client_create(display, fds[0]);
  if (server_side_ == nullptr) {
    close(fds[0]);
    throw std::runtime_error("wl_client_create failed");
  }
  objects_.push_back({1, &wl_display_interface, 1});
  globals_.reserve(64);  // baton offers some fifty: no regrowth as they come
  std::vector<WireArg> args(1);
  args[0].type = 'n';
  args[0].value = next_id_;
  add_object(&wl_registry_interface, 1);
  send(1, WL_DISPLAY_GET_REGISTRY, args);
}

// Closing the socket is enough: the server sees the hang-up on its next
// dispatch and destroys the client with all its objects, as for a crash.
WireClient::~WireClient() = default;

void WireClient::add_object(const wl_interface* interface, uint32_t version) {
  objects_.push_back({next_id_++, interface, version});
}

const ClientObject* WireClient::find(uint32_t id) const {
  auto it = std::find_if(objects_.begin(), objects_.end(),
                         [id](const ClientObject& o) { return o.id == id; });
  return it == objects_.end() ? nullptr : &*it;
}

void WireClient::forget(uint32_t id) {
  auto it = std::find_if(objects_.begin(), objects_.end(),
                         [id](const ClientObject& o) { return o.id == id; });
  if (it == objects_.end()) return;
  objects_.erase(it);
  stale_.push_back(id);
}

void WireClient::send(uint32_t object, uint32_t opcode, std::vector<WireArg>& args) {
  if (dead_ || out_.size() > kMaxQueued) return;
  size_t fds = 0;
  for (const WireArg& arg : args) fds += arg.type == 'h' ? 1 : 0;
  if (out_fds_.size() + fds > kMaxFdsPerSend) flush();
  if (out_fds_.size() + fds > kMaxFdsPerSend) return;  // still held: drop this one

  // Written in place, the size once the body is there.
  const size_t start = out_.size();
  put_u32(out_, object);
  put_u32(out_, 0);
  for (WireArg& arg : args) {
    switch (arg.type) {
      case 's':
        if (arg.null) {
          put_u32(out_, 0);
        } else {
          const size_t length = arg.bytes.size() + (arg.terminated ? 1 : 0);
          put_u32(out_, static_cast<uint32_t>(length));
          out_.insert(out_.end(), arg.bytes.begin(), arg.bytes.end());
          if (arg.terminated) out_.push_back(0);
          out_.resize(out_.size() + (4 - length % 4) % 4, 0);
        }
        break;
      case 'a':
        put_u32(out_, arg.null ? 0 : static_cast<uint32_t>(arg.bytes.size()));
        if (!arg.null) put_padded(out_, arg.bytes.data(), arg.bytes.size());
        break;
      case 'h':
        out_fds_.push_back(arg.fd.release());
        break;
      default:
        put_u32(out_, arg.value);
        break;
    }
  }
  // The size field has 16 bits; libwayland refuses what does not fit anyway.
  const size_t size = out_.size() - start;
  const uint32_t size_and_opcode =
      static_cast<uint32_t>((std::min<size_t>(size, 0xffff) << 16) | (opcode & 0xffff));
  std::memcpy(out_.data() + start + 4, &size_and_opcode, 4);
  if (out_.size() > size_t{16} * 1024) flush();
}

void WireClient::flush() {
  while (!out_.empty() && !dead_) {
    iovec iov{out_.data(), out_.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    std::array<char, CMSG_SPACE(kMaxFdsPerSend * sizeof(int))> control{};
    if (!out_fds_.empty()) {
      msg.msg_control = control.data();
      msg.msg_controllen = CMSG_SPACE(out_fds_.size() * sizeof(int));
      cmsghdr* header = CMSG_FIRSTHDR(&msg);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(out_fds_.size() * sizeof(int));
      std::memcpy(CMSG_DATA(header), out_fds_.data(), out_fds_.size() * sizeof(int));
    }
    const ssize_t sent = sendmsg(socket_.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) dead_ = true;  // the server hung up
      return;
    }
    for (int fd : out_fds_) close(fd);  // the server has its own copies now
    out_fds_.clear();
    out_.erase(out_.begin(), out_.begin() + sent);
  }
  if (dead_) {
    for (int fd : out_fds_) close(fd);
    out_fds_.clear();
  }
}

void WireClient::read_events() {
  while (!dead_) {
    std::array<uint8_t, 8192> buffer;
    iovec iov{buffer.data(), buffer.size()};
    std::array<char, CMSG_SPACE(kMaxFdsPerSend * sizeof(int))> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    const ssize_t got = recvmsg(socket_.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0 || errno != EAGAIN) dead_ = true;
      break;
    }
    // Keymaps and the like: this client never maps them.
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        close(fd);
      }
    }
    in_.insert(in_.end(), buffer.begin(), buffer.begin() + got);
    size_t used = 0;
    while (in_.size() - used >= 8) {
      const uint32_t size = get_u32(in_.data() + used + 4) >> 16;
      if (size < 8) {
        dead_ = true;  // a server that sends this is broken; stop reading it
        break;
      }
      if (in_.size() - used < size) break;
      parse(in_.data() + used, size);
      used += size;
    }
    in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(used));
  }
}

void WireClient::parse(const uint8_t* data, size_t size) {
  const uint32_t id = get_u32(data);
  const uint32_t opcode = get_u32(data + 4) & 0xffff;
  const ClientObject* target = find(id);
  if (target == nullptr || target->interface == nullptr) return;  // destroyed here already
  const ClientObject copy = *target;
  handle_event(copy, opcode, data + 8, size - 8);
}

void WireClient::handle_event(const ClientObject& target, uint32_t opcode, const uint8_t* args,
                              size_t size) {
  if (opcode >= static_cast<uint32_t>(target.interface->event_count)) return;
  const wl_message& message = target.interface->events[opcode];
  // Decode just enough: the first two integers, the first string, new ids.
  // Nothing is allocated per event: every new client reads some fifty
  // globals, and under ASan the allocations cost more than the decoding.
  std::array<uint32_t, 2> words{};
  size_t word_count = 0;
  std::string_view first_string;
  size_t string_count = 0;
  size_t at = 0;
  size_t index = 0;  // of the argument, in message.types
  for (const char* c = message.signature; *c != '\0'; ++c) {
    const char type = *c;
    if (type == '?' || (type >= '0' && type <= '9')) continue;
    const size_t arg = index++;
    if (type == 'h') continue;
    if (at + 4 > size) return;
    const uint32_t value = get_u32(args + at);
    at += 4;
    if (type == 's' || type == 'a') {
      const size_t padded = (size_t{value} + 3) & ~size_t{3};
      if (at + padded > size) return;
      if (type == 's' && string_count++ == 0)
        first_string =
            std::string_view(reinterpret_cast<const char*>(args + at), value > 0 ? value - 1 : 0);
      at += padded;
      continue;
    }
    if (word_count < words.size()) words[word_count] = value;
    ++word_count;
    if (type == 'n') objects_.push_back({value, message.types[arg], target.version});
  }
  if (target.id == 1 && opcode == kDisplayError) {
    dead_ = true;
    error_ = string_count == 0 ? "(no message)" : std::string(first_string);
  } else if (target.id == 1 && opcode == kDisplayDeleteId && word_count > 0) {
    forget(words[0]);
  } else if (target.interface == &wl_registry_interface && opcode == kRegistryGlobal &&
             word_count == 2 && string_count == 1) {
    // A second registry announces the same globals again.
    const auto known = std::lower_bound(global_names_.begin(), global_names_.end(), words[0]);
    if (known == global_names_.end() || *known != words[0]) {
      global_names_.insert(known, words[0]);
      globals_.push_back({words[0], std::string(first_string), words[1]});
    }
  } else if (target.interface == &wl_registry_interface && opcode == kRegistryGlobalRemove &&
             word_count > 0) {
    std::erase_if(globals_, [&](const Global& g) { return g.name == words[0]; });
    std::erase(global_names_, words[0]);
  }
}

}  // namespace baton::fuzz
