#include <gtest/gtest.h>

#include <memory>

#include "util/listener.hpp"

namespace {

struct Payload {
  int value;
};

TEST(Listener, ReceivesTypedPayload) {
  wl_signal signal;
  wl_signal_init(&signal);
  int seen = 0;
  baton::Listener<Payload> listener(&signal, [&](Payload* p) { seen = p->value; });
  Payload payload{42};
  wl_signal_emit(&signal, &payload);
  EXPECT_EQ(seen, 42);
}

TEST(Listener, DisconnectsOnDestruction) {
  wl_signal signal;
  wl_signal_init(&signal);
  int calls = 0;
  {
    baton::Listener<void> listener(&signal, [&](void*) { ++calls; });
    wl_signal_emit(&signal, nullptr);
  }
  EXPECT_TRUE(wl_list_empty(&signal.listener_list));
  wl_signal_emit(&signal, nullptr);
  EXPECT_EQ(calls, 1);
}

TEST(Listener, ReconnectLeavesTheOldSignal) {
  wl_signal first;
  wl_signal second;
  wl_signal_init(&first);
  wl_signal_init(&second);
  int calls = 0;
  baton::Listener<void> listener([&](void*) { ++calls; });
  EXPECT_FALSE(listener.connected());
  listener.connect(&first);
  listener.connect(&second);
  EXPECT_TRUE(listener.connected());
  EXPECT_TRUE(wl_list_empty(&first.listener_list));
  wl_signal_emit(&second, nullptr);
  EXPECT_EQ(calls, 1);
  listener.disconnect();
  EXPECT_FALSE(listener.connected());
  listener.disconnect();  // twice is harmless
}

// The common case in a compositor: a destroy handler deletes the object that
// owns the listener, from inside the emission.
TEST(Listener, HandlerMayDestroyItsOwnListener) {
  wl_signal signal;
  wl_signal_init(&signal);
  auto owner = std::make_unique<baton::Listener<void>>();
  bool ran = false;
  owner->connect(&signal, [&](void*) {
    ran = true;
    owner.reset();
  });
  wl_signal_emit_mutable(&signal, nullptr);
  EXPECT_TRUE(ran);
  EXPECT_EQ(owner, nullptr);
  EXPECT_TRUE(wl_list_empty(&signal.listener_list));
}

}  // namespace
