#include "tests/fuzz/arguments.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <string>

#include "tests/support/fake_syncobj.hpp"

namespace baton::fuzz {
namespace {

constexpr std::array<uint32_t, 14> kExtremes = {
    0u,          1u,          0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 0x10000u,
    0x7ffffffeu, 0xfffffffeu, 4096u,       16384u,      0xff000000u, 3u,      0x3fffffffu};

// Strings clients send: interface and app ids, mime types, names; plus bytes
// that are not UTF-8.
constexpr std::array<const char*, 10> kWords = {"wl_compositor",
                                                "xdg_wm_base",
                                                "text/plain;charset=utf-8",
                                                "org.baton.fuzz",
                                                "",
                                                "\xff\xfe\xfd",
                                                "a",
                                                "wl_surface",
                                                "image/png",
                                                "x\ty\nz"};

uint32_t choose_int(ByteSource& in, uint32_t hint, uint32_t recent_serial) {
  switch (in.u8() % 9) {
    case 0:
      return in.u8() % 8;
    case 1:
      return in.u16() % 2048;
    case 2:
      return kExtremes[in.u8() % kExtremes.size()];
    case 3:
      return in.u32();
    case 4:
      return static_cast<uint32_t>(-static_cast<int32_t>(in.u8() % 64));
    case 5:
      return hint;  // e.g. the size of the memfd just sent
    case 6:
      return (in.u8() % 64) * 4;  // strides, offsets
    case 7:
      return recent_serial - in.u8() % 4;  // a press's serial, or one after it
    default:
      return in.u8();
  }
}

std::string choose_string(ByteSource& in, WireArg& arg) {
  switch (in.u8() % 16) {
    case 0:
      arg.null = true;
      return {};
    case 1:
      return std::string(1 + in.u16() % 4000, 'a');  // near the 4 KiB message limit
    case 2:
      arg.terminated = false;
      return in.bytes(in.u8() % 16);
    case 3:
    case 4:
    case 5:
      return in.bytes(in.u8() % 32);
    default:
      return kWords[in.u8() % kWords.size()];
  }
}

// A live object of `want` (any live object when null or none is live).
uint32_t choose_object(ByteSource& in, const WireClient& client, const wl_interface* want) {
  const auto& objects = client.objects();
  std::vector<uint32_t> matching;
  for (const ClientObject& o : objects)
    if (want == nullptr || o.interface == want) matching.push_back(o.id);
  if (matching.empty())
    for (const ClientObject& o : objects) matching.push_back(o.id);
  return matching[in.u8() % matching.size()];
}

}  // namespace

UniqueFd choose_fd(ByteSource& in, uint32_t& size) {
  size = 0;
  const uint8_t kind = in.u8() % 11;
  if (kind == 10) return test::fake_timeline_fd();  // a syncobj's, for import_timeline
  if (kind == 7) return UniqueFd(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (kind == 8) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return {};
    close(fds[1]);
    return UniqueFd(fds[0]);
  }
  if (kind == 9) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return {};
    close(fds[1]);
    return UniqueFd(fds[0]);
  }
  switch (kind) {
    case 0:
      size = 0;
      break;
    case 1:
      size = 1 + in.u16();  // odd sizes
      break;
    case 2:
    case 3:
    case 4:
      size = 4096u * (1 + in.u8() % 64);
      break;
    case 5:
      size = (1u << 20) + in.u8();
      break;
    default:
      size = in.u8() * 4u;
      break;
  }
  UniqueFd fd(memfd_create("baton-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd && ftruncate(fd.get(), size) != 0) size = 0;
  return fd;
}

Request choose_request(ByteSource& in, const WireClient& client, const ClientObject& object,
                       uint32_t recent_serial) {
  Request request;
  const wl_interface& interface = *object.interface;
  request.target = object.id;
  // Mostly a target that exists; now and then one destroyed already, or an
  // id this client never had.
  const uint8_t target_mode = in.u8() % 32;
  if (target_mode == 0 && !client.stale_ids().empty())
    request.target = client.stale_ids()[in.u8() % client.stale_ids().size()];
  else if (target_mode == 1)
    request.target = in.u32();
  request.opcode = interface.method_count > 0 ? in.u8() % interface.method_count : 0;
  if (in.u8() % 64 == 0) request.opcode = interface.method_count + in.u8() % 4;  // no such request
  if (request.opcode >= static_cast<uint32_t>(interface.method_count)) return request;

  const wl_message& message = interface.methods[request.opcode];
  const std::string types = signature_types(message);
  uint32_t hint = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    WireArg arg;
    arg.type = types[i];
    const uint8_t mode = in.u8();
    switch (arg.type) {
      case 'i':
      case 'u':
        arg.value = choose_int(in, hint, recent_serial);
        break;
      case 'f':
        arg.value = mode % 2 ? choose_int(in, hint, recent_serial)
                             : choose_int(in, hint, recent_serial) << 8;  // 24.8 fixed
        break;
      case 's':
        arg.bytes = choose_string(in, arg);
        break;
      case 'a':
        arg.null = mode % 32 == 0;
        arg.bytes = in.bytes(mode % 64);
        break;
      case 'o':
        if (mode % 16 == 0)
          arg.value = 0;  // null, nullable or not
        else if (mode % 16 == 1 && !client.stale_ids().empty())
          arg.value = client.stale_ids()[in.u8() % client.stale_ids().size()];
        else if (mode % 16 == 2)
          arg.value = client.next_id() + in.u8();  // not yet (or never) created
        else
          arg.value = choose_object(in, client, message.types[i]);
        break;
      case 'n': {
        const uint32_t fresh = client.next_id() + static_cast<uint32_t>(request.created.size());
        if (mode % 32 == 0) {
          arg.value = choose_object(in, client, nullptr);  // an id in use
        } else if (mode % 32 == 1) {
          arg.value = mode % 2 ? 0 : 0xff000001u;  // null, or the server's range
        } else {
          arg.value = fresh;
          request.created.push_back({fresh, message.types[i], object.version});
        }
        break;
      }
      case 'h':
        arg.fd = choose_fd(in, hint);
        break;
      default:
        break;
    }
    request.args.push_back(std::move(arg));
  }
  return request;
}

}  // namespace baton::fuzz
