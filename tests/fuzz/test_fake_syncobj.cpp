// The fuzzer's fake syncobj device (fake_syncobj.hpp), through the libdrm
// calls baton makes: if the model did not hold and release as the kernel
// does, the fuzzer would explore a device that does not exist. The last test
// checks that the fuzzer's server offers linux-drm-syncobj-v1 on it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include <string>

#include "compositor/config/options.hpp"
#include "sync/timeline.hpp"
#include "tests/support/fake_syncobj.hpp"
#include "tests/support/harness.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

bool readable(const UniqueFd& fd) {
  pollfd p{fd.get(), POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

class FakeSyncobj : public ::testing::Test {
 protected:
  void SetUp() override {
    drm_ = UniqueFd(open(fake_drm_device_path().c_str(), O_RDWR | O_CLOEXEC));
    ASSERT_TRUE(drm_);
  }
  void TearDown() override { fake_syncobj_input_done(); }

  // A client's timeline as baton imports it: its fd, turned into a handle.
  sync::Timeline import_new() {
    UniqueFd fd = fake_timeline_fd();
    EXPECT_TRUE(fd);
    auto timeline = sync::Timeline::import_fd(drm_.get(), fd);
    EXPECT_TRUE(timeline.ok()) << timeline.error().describe();
    return std::move(*timeline);
  }

  UniqueFd drm_;
};

TEST_F(FakeSyncobj, TheDeviceHasTimelinesAndTheEventfdIoctl) {
  EXPECT_TRUE(sync::check_timeline_support(drm_.get()).ok());
}

TEST_F(FakeSyncobj, OnlyItsOwnSyncobjFdsImport) {
  UniqueFd not_a_syncobj(eventfd(0, EFD_CLOEXEC));
  EXPECT_FALSE(sync::Timeline::import_fd(drm_.get(), not_a_syncobj).ok());
  UniqueFd memfd(memfd_create("not-a-syncobj", MFD_CLOEXEC));
  EXPECT_FALSE(sync::Timeline::import_fd(drm_.get(), memfd).ok());
}

TEST_F(FakeSyncobj, AWaiterWakesWhenTheGpuSignalsItsPointNotBefore) {
  sync::Timeline timeline = import_new();
  auto signalled = timeline.eventfd(2, sync::Timeline::WaitFor::signalled);
  auto available = timeline.eventfd(2, sync::Timeline::WaitFor::available);
  ASSERT_TRUE(signalled.ok() && available.ok());
  fake_gpu_acts(0, 1, true);  // an earlier point
  EXPECT_FALSE(readable(*signalled));
  EXPECT_FALSE(readable(*available));
  fake_gpu_acts(0, 2, false);  // point 2 gets its fence
  EXPECT_TRUE(readable(*available));
  EXPECT_FALSE(readable(*signalled));
  fake_gpu_acts(0, 2, true);
  EXPECT_TRUE(readable(*signalled));
  EXPECT_EQ(timeline.last_signalled().value(), 2u);
}

TEST_F(FakeSyncobj, ASignalFromBatonWakesTheClientsWaiter) {
  sync::Timeline timeline = import_new();
  auto waiter = timeline.eventfd(5, sync::Timeline::WaitFor::signalled);
  ASSERT_TRUE(waiter.ok());
  ASSERT_TRUE(timeline.signal(5).ok());
  EXPECT_TRUE(readable(*waiter));
}

TEST_F(FakeSyncobj, ATransferSignalsItsPointWhenTheSourceDoes) {
  sync::Timeline acquire = import_new();
  sync::Timeline release = import_new();
  // Nothing to move before the source point has a fence, as in the kernel.
  EXPECT_FALSE(release.transfer_from(1, acquire, 3).ok());
  fake_gpu_acts(0, 3, false);
  ASSERT_TRUE(release.transfer_from(1, acquire, 3).ok());
  auto waiter = release.eventfd(1, sync::Timeline::WaitFor::signalled);
  ASSERT_TRUE(waiter.ok());
  EXPECT_FALSE(readable(*waiter));
  fake_gpu_acts(0, 3, true);
  EXPECT_TRUE(readable(*waiter));
}

TEST_F(FakeSyncobj, AnExportedSyncFilePollsReadableOnceItsPointSignals) {
  sync::Timeline timeline = import_new();
  EXPECT_FALSE(timeline.export_sync_file(1).ok());  // no fence yet
  fake_gpu_acts(0, 1, false);
  auto fence = timeline.export_sync_file(1);
  ASSERT_TRUE(fence.ok()) << fence.error().describe();
  EXPECT_FALSE(fence->signalled().value());
  fake_gpu_acts(0, 1, true);
  EXPECT_TRUE(fence->signalled().value());
}

TEST_F(FakeSyncobj, TheWaitNeverBlocks) {
  sync::Timeline timeline = import_new();
  fake_gpu_acts(0, 1, false);
  auto done = timeline.wait(1, sync::Timeline::WaitFor::signalled, std::chrono::seconds(30));
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
}

TEST_F(FakeSyncobj, TheFuzzersServerOffersExplicitSyncOnIt) {
  Options options = test::headless_options(320, 240, 1);
  options.drm_device = fake_drm_device_path();
  options.syncobj_without_own_dmabuf = true;
  test::Harness harness(options);
  EXPECT_NE(harness.server().explicit_sync(), nullptr);
}

}  // namespace
}  // namespace baton::test
