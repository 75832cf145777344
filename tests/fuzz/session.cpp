#include "tests/fuzz/session.hpp"

#include <linux/input-event-codes.h>
#include <wayland-client-protocol.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "compositor/input/seat.hpp"
#include "compositor/output/output.hpp"
#include "compositor/shell/session_lock.hpp"
#include "ext-session-lock-v1-client-protocol.h"
#include "tests/fuzz/arguments.hpp"
#include "tests/fuzz/interfaces.hpp"
#include "tests/support/fake_dmabuf.hpp"
#include "tests/support/fake_syncobj.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton::fuzz {
namespace {

// Actions per input: long enough to build a window and a buffer, short
// enough that one input stays a fraction of a millisecond to a few.
constexpr int kMaxActions = 600;
constexpr size_t kMaxClients = 3;
constexpr int kMaxReplacements = 8;

Options fuzz_options() {
  Options options = test::headless_options(320, 240, 1);
  // linux-drm-syncobj-v1 on a fake device (fake_syncobj.hpp), beside the
  // fake dma-buf global below.
  options.drm_device = test::fake_drm_device_path();
  options.syncobj_without_own_dmabuf = true;
  return options;
}

}  // namespace

Session::Session()
    : harness_(fuzz_options()), pointer_(harness_.server()), touch_(harness_.server()) {
  // BATON_FUZZ_TRACE=1: each request on stderr, to read what an input does.
  const char* trace = std::getenv("BATON_FUZZ_TRACE");
  trace_ = trace != nullptr && trace[0] == '1';
  // Every rejected request logs a line; at this rate logging is the cost.
  log::set_level(log::Level::error);
  if (test::offer_fake_linux_dmabuf(harness_.server().display()) == nullptr) {
    std::fprintf(stderr, "fuzz: could not offer linux-dmabuf-v1\n");
    std::abort();
  }
}

void Session::settle(const std::vector<std::unique_ptr<WireClient>>& clients) {
  for (auto& client : clients) client->flush();
  harness_.server().dispatch(0);
  for (auto& client : clients) client->read_events();
}

void Session::bind(WireClient& client, ByteSource& in) {
  const auto& globals = client.globals();
  if (globals.empty()) return;
  const Global& global = globals[in.u8() % globals.size()];
  const wl_interface* interface = global_interface(global.interface);
  if (interface == nullptr && unknown_globals_.insert(global.interface).second)
    std::fprintf(stderr, "fuzz: no interface table for global %s: not fuzzed\n",
                 global.interface.c_str());
  const uint8_t mode = in.u8();
  const uint32_t top = std::min<uint32_t>(
      global.version, interface != nullptr ? static_cast<uint32_t>(interface->version) : 1);
  uint32_t version = (mode & 0x10) != 0 ? top : 1 + (mode >> 5) % top;
  if (mode % 16 == 0) version = 0;
  if (mode % 16 == 1) version = global.version + 1;  // above what is offered
  std::vector<WireArg> args(4);
  args[0].type = 'u';
  args[0].value = mode % 16 == 2 ? in.u32() : global.name;
  args[1].type = 's';
  args[1].bytes = mode % 16 == 3 ? "wl_nonsense" : global.interface;
  args[2].type = 'u';
  args[2].value = version;
  args[3].type = 'n';
  args[3].value = client.next_id();
  client.send(client.registry(), WL_REGISTRY_BIND, args);
  client.add_object(interface, version);
}

void Session::request(WireClient& client, ByteSource& in) {
  const auto& objects = client.objects();
  // Half the time one of the four newest objects: "make it, then use it"
  // sequences are what reach past the first request of each interface.
  const uint8_t pick = in.u8();
  const size_t recent = std::min<size_t>(objects.size(), 4);
  const ClientObject& object = (pick & 1) != 0 ? objects[objects.size() - 1 - (pick >> 1) % recent]
                                               : objects[(pick >> 1) % objects.size()];
  if (object.interface == &wl_registry_interface) return bind(client, in);
  if (object.interface == nullptr) return;
  Request request =
      choose_request(in, client, object, wl_display_get_serial(harness_.server().display()));
  if (trace_ && request.opcode < static_cast<uint32_t>(object.interface->method_count))
    std::fprintf(stderr, "fuzz: %s@%u.%s\n", object.interface->name, request.target,
                 object.interface->methods[request.opcode].name);
  client.send(request.target, request.opcode, request.args);
  for (const ClientObject& created : request.created)
    client.add_object(created.interface, created.version);
}

void Session::frame(ByteSource& in) {
  auto outputs = harness_.server().outputs();
  if (outputs.empty()) return;
  // The frame event, now: baton renders and commits as on a vblank.
  wlr_output_send_frame(outputs[in.u8() % outputs.size()]->wlr());
}

void Session::gpu(ByteSource& in) {
  const uint8_t which = in.u8();
  const uint8_t how = in.u8();
  // Mostly the small points clients use; now and then any.
  const uint64_t point = (how & 0x80) != 0 ? in.u64() : how % 8;
  test::fake_gpu_acts(which, point, (how & 0x40) != 0);
  if (trace_)
    std::fprintf(stderr, "fuzz: gpu: timeline %u point %llu %s\n", which,
                 static_cast<unsigned long long>(point),
                 (how & 0x40) != 0 ? "signals" : "gets a fence");
}

void Session::input(ByteSource& in) {
  const uint8_t what = in.u8();
  // Over the 320x240 output, and a little past its edges.
  const double x = static_cast<double>(in.u16() % 360) - 20.0;
  const double y = static_cast<double>(in.u16() % 280) - 20.0;
  static constexpr uint32_t kButtons[] = {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE};
  const uint32_t button = kButtons[(what >> 3) % 3];
  const int32_t point = (what >> 3) % 3;
  switch (what % 6) {
    case 0:
      pointer_.move_to(x, y);
      break;
    case 1:  // a button goes down once before it comes up, as on a mouse
      if (buttons_held_.insert(button).second) pointer_.press(button, true);
      break;
    case 2:
      if (buttons_held_.erase(button) > 0) pointer_.press(button, false);
      break;
    case 3:
      if (points_down_.insert(point).second) {
        touch_.down(point, x, y);
        touch_.frame();
      }
      break;
    case 4:
      if (points_down_.count(point) > 0) {
        touch_.motion(point, x, y);
        touch_.frame();
      }
      break;
    default:
      if (points_down_.erase(point) > 0) {
        touch_.up(point);
        touch_.frame();
      }
      break;
  }
  if (trace_)
    std::fprintf(stderr, "fuzz: input %d at %.0f,%.0f (button %u, point %d)\n", what % 6, x, y,
                 button, point);
}

void Session::release_input() {
  for (uint32_t button : buttons_held_) pointer_.press(button, false);
  buttons_held_.clear();
  for (int32_t point : points_down_) touch_.up(point);
  if (!points_down_.empty()) touch_.frame();
  points_down_.clear();
}

void Session::run(const uint8_t* data, size_t size) {
  ByteSource in(data, size);
  std::vector<std::unique_ptr<WireClient>> clients;
  clients.push_back(std::make_unique<WireClient>(harness_.server().display()));
  settle(clients);  // the registry's globals
  size_t current = 0;
  int replaced = 0;
  for (int action = 0; action < kMaxActions && !in.empty(); ++action) {
    // A client cut off by a protocol error is replaced, so the rest of the
    // input still acts (a few replacements at most).
    if (clients[current]->dead() && replaced < kMaxReplacements) {
      ++replaced;
      clients[current] = std::make_unique<WireClient>(harness_.server().display());
      settle(clients);
    }
    WireClient& client = *clients[current];
    switch (in.u8() % 12) {
      case 0:
        bind(client, in);
        break;
      case 1:
        settle(clients);
        break;
      case 2:
        frame(in);
        break;
      case 3: {  // another client: the others must live through its errors
        current = in.u8() % kMaxClients;
        if (current >= clients.size()) {
          current = clients.size();
          clients.push_back(std::make_unique<WireClient>(harness_.server().display()));
          settle(clients);
        }
        break;
      }
      case 5:  // the user's hands
        input(in);
        break;
      case 4:  // the clients' GPU, once they have timelines
        if (test::fake_timelines_this_input() > 0) {
          gpu(in);
          break;
        }
        request(client, in);
        break;
      default:
        request(client, in);
        break;
    }
  }
  release_input();  // a drag still held drops on its clients
  settle(clients);
  clients.clear();  // hang up, as killed processes do
  test::fake_syncobj_input_done();
  harness_.server().dispatch(0);
  pointer_.move_to(0, 0);  // every input starts with the pointer there
  unlock_left_session();
  check_no_drag_left();
  check_still_serving();
}

void Session::check_no_drag_left() {
  // Every button and finger is up and every client gone: whatever drag
  // there was has ended. One that had not would refuse every later
  // start_drag, and leak (a popup's grab once took its place).
  if (harness_.server().seat().wlr()->drag == nullptr) return;
  std::fprintf(stderr,
               "fuzz: a drag outlived its input (no button or finger held, its client gone)\n");
  std::abort();
}

void Session::unlock_left_session() {
  if (!harness_.server().session_lock().locked()) return;
  // A locker that died without unlocking leaves the session locked, as it
  // must; the next input would then run against covers and a seat that
  // gives no input to windows, and its outcome would depend on the inputs
  // before it. A new locker takes over and unlocks, as a user's would.
  std::vector<std::unique_ptr<WireClient>> locker;
  locker.push_back(std::make_unique<WireClient>(harness_.server().display()));
  settle(locker);
  WireClient& client = *locker[0];
  const auto& globals = client.globals();
  const auto manager = std::find_if(globals.begin(), globals.end(), [](const Global& g) {
    return g.interface == ext_session_lock_manager_v1_interface.name;
  });
  if (manager == globals.end()) {
    std::fprintf(stderr, "fuzz: the session is locked but no lock manager is offered\n");
    std::abort();
  }
  std::vector<WireArg> bind(4);
  bind[0].value = manager->name;
  bind[1].type = 's';
  bind[1].bytes = manager->interface;
  bind[2].value = 1;
  bind[3].type = 'n';
  bind[3].value = client.next_id();
  client.send(client.registry(), WL_REGISTRY_BIND, bind);
  const uint32_t manager_id = client.next_id();
  client.add_object(&ext_session_lock_manager_v1_interface, 1);
  std::vector<WireArg> lock(1);
  lock[0].type = 'n';
  lock[0].value = client.next_id();
  client.send(manager_id, EXT_SESSION_LOCK_MANAGER_V1_LOCK, lock);
  const uint32_t lock_id = client.next_id();
  client.add_object(&ext_session_lock_v1_interface, 1);
  std::vector<WireArg> none;
  client.send(lock_id, EXT_SESSION_LOCK_V1_UNLOCK_AND_DESTROY, none);
  settle(locker);
  if (harness_.server().session_lock().locked()) {
    std::fprintf(stderr,
                 "fuzz: a new locker could not unlock a session its dead locker left (%s)\n",
                 client.dead() ? client.error().c_str() : "still locked");
    std::abort();
  }
  if (trace_) std::fprintf(stderr, "fuzz: unlocked the session a dead locker left\n");
  locker.clear();
  harness_.server().dispatch(0);
}

void Session::check_still_serving() {
  std::vector<std::unique_ptr<WireClient>> probe;
  probe.push_back(std::make_unique<WireClient>(harness_.server().display()));
  std::vector<WireArg> args(1);
  args[0].type = 'n';
  args[0].value = probe[0]->next_id();
  probe[0]->send(1, WL_DISPLAY_SYNC, args);
  probe[0]->add_object(&wl_callback_interface, 1);
  // The callback's id comes back through delete_id once done was sent.
  for (int round = 0; round < 50; ++round) {
    settle(probe);
    const auto& stale = probe[0]->stale_ids();
    if (std::find(stale.begin(), stale.end(), args[0].value) != stale.end()) {
      probe.clear();
      harness_.server().dispatch(0);
      return;
    }
  }
  std::fprintf(stderr, "fuzz: baton no longer answers a new client's wl_display.sync (%s)\n",
               probe[0]->dead() ? probe[0]->error().c_str() : "no answer");
  std::abort();
}

}  // namespace baton::fuzz
