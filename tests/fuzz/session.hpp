// One baton Server (headless backend, pixman) that every fuzz input runs
// against, and the decoding of one input into what its clients do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/fuzz/byte_source.hpp"
#include "tests/fuzz/wire_client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"

namespace baton::fuzz {

class Session {
 public:
  Session();

  /// Runs one input: up to three clients bind globals, send requests, and
  /// the server dispatches and renders frames in between; then they hang up
  /// and a fresh client checks that baton still answers. Aborts (a crash for
  /// the fuzzer) when it does not.
  void run(const uint8_t* data, size_t size);

 private:
  void bind(WireClient& client, ByteSource& in);
  void request(WireClient& client, ByteSource& in);
  void frame(ByteSource& in);
  void gpu(ByteSource& in);
  /// A mouse or a finger acts: motion, a button, a touch point down, moving
  /// or up (what drags, grabs and popups need from the seat).
  void input(ByteSource& in);
  /// Lets go of every button and touch point still held, so that the next
  /// input starts from a seat at rest.
  void release_input();
  void settle(const std::vector<std::unique_ptr<WireClient>>& clients);
  void unlock_left_session();
  /// Aborts when a drag still holds the seat after the input.
  void check_no_drag_left();
  void check_still_serving();

  test::Harness harness_;
  test::FakePointer pointer_;
  test::FakeTouch touch_;
  std::set<uint32_t> buttons_held_;
  std::set<int32_t> points_down_;
  std::set<std::string> unknown_globals_;
  bool trace_ = false;
};

}  // namespace baton::fuzz
