// Arguments for one request, chosen from the fuzzer's input by the message's
// signature: mostly well-formed (live objects of the right interface, the
// next free id, sizes that fit) so that inputs reach deep into the handlers,
// with adversarial values mixed in (null where not nullable, stale and
// foreign ids, extreme integers, long or unterminated strings, fds of odd
// kinds and sizes).
#pragma once

#include <cstdint>
#include <vector>

#include "tests/fuzz/byte_source.hpp"
#include "tests/fuzz/wire_client.hpp"

namespace baton::fuzz {

struct Request {
  uint32_t target = 0;
  uint32_t opcode = 0;
  std::vector<WireArg> args;
  /// Objects the request creates, in id order from the client's next_id().
  std::vector<ClientObject> created;
};

/// A request on `object` (one of `client`'s) chosen from `in`. Integers are
/// now and then `recent_serial` or just below it: the serial of an input
/// event lets requests such as start_drag, move and popup grabs through.
Request choose_request(ByteSource& in, const WireClient& client, const ClientObject& object,
                       uint32_t recent_serial);

/// An fd for an 'h' argument: a memfd of some size, /dev/null, a pipe, a socket.
/// `size` receives the memfd's size (0 for the others).
UniqueFd choose_fd(ByteSource& in, uint32_t& size);

}  // namespace baton::fuzz
