#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "util/signal.hpp"
#include "util/weak.hpp"

namespace {

using baton::Connection;
using baton::Signal;

TEST(Signal, SubscribersRunInOrderWithTheArguments) {
  Signal<int, const char*> signal;
  std::vector<int> seen;
  Connection a = signal.connect([&](int n, const char*) { seen.push_back(n); });
  Connection b =
      signal.connect([&](int n, const char* s) { seen.push_back(n * 10 + (s[0] == 'x')); });
  signal.emit(4, "x");
  EXPECT_EQ(seen, (std::vector<int>{4, 41}));
}

TEST(Signal, ADestroyedConnectionIsNeverCalled) {
  Signal<> signal;
  int calls = 0;
  {
    Connection c = signal.connect([&] { ++calls; });
    signal.emit();
  }
  signal.emit();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(signal.connections(), 0u);
}

TEST(Signal, AConnectionMayOutliveItsSignal) {
  Connection c;
  {
    Signal<> signal;
    c = signal.connect([] {});
  }
  EXPECT_TRUE(c.connected());
  c.disconnect();  // nothing to remove from: no crash
  EXPECT_FALSE(c.connected());
}

TEST(Signal, SubscribersMayDisconnectDuringEmit) {
  Signal<> signal;
  std::vector<char> seen;
  Connection a, b, c;
  a = signal.connect([&] {
    seen.push_back('a');
    b.disconnect();  // later in the order: not called this time
  });
  b = signal.connect([&] { seen.push_back('b'); });
  c = signal.connect([&] {
    seen.push_back('c');
    c.disconnect();  // itself
  });
  signal.emit();
  signal.emit();
  EXPECT_EQ(seen, (std::vector<char>{'a', 'c', 'a'}));
}

TEST(Signal, SubscribersConnectedDuringEmitWaitForTheNextOne) {
  Signal<> signal;
  int late_calls = 0;
  Connection late;
  Connection first = signal.connect([&] {
    if (!late.connected()) late = signal.connect([&] { ++late_calls; });
  });
  signal.emit();
  EXPECT_EQ(late_calls, 0);
  signal.emit();
  EXPECT_EQ(late_calls, 1);
}

struct Thing : baton::Weakable<Thing> {
  int value = 7;
};

TEST(Weak, ReadsNullOnceTheObjectIsGone) {
  auto thing = std::make_unique<Thing>();
  baton::Weak<Thing> weak = thing.get();
  baton::Weak<Thing> copy;
  copy = weak;
  ASSERT_TRUE(weak);
  EXPECT_EQ(weak->value, 7);
  EXPECT_TRUE(copy == thing.get());
  thing.reset();
  EXPECT_FALSE(weak);
  EXPECT_EQ(copy.get(), nullptr);
  baton::Weak<Thing> never;
  EXPECT_EQ(never.get(), nullptr);
}

}  // namespace
