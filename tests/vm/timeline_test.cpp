// baton::sync::Timeline against DRM syncobj timelines on virtio-gpu's render
// node in the guest, with unsignalled fences from vgem.
#include "sync/timeline.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <xf86drm.h>

#include <chrono>

#include "tests/clients/drm_node.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/vm/expect_ok.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;
using sync::SyncFile;
using sync::Timeline;
using WaitFor = Timeline::WaitFor;
using testing::NodeKind;

bool readable(const UniqueFd& fd, int timeout_ms) {
  pollfd p{fd.get(), POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN) != 0;
}

class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_ = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::render));
    vgem_ = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  }
  UniqueFd gpu_;
  UniqueFd vgem_;
};

TEST_F(TimelineTest, DeviceHasTimelineSyncobjs) {
  uint64_t cap = 0;
  ASSERT_EQ(drmGetCap(gpu_.get(), DRM_CAP_SYNCOBJ_TIMELINE, &cap), 0);
  EXPECT_EQ(cap, 1u) << "virtio_gpu of kernel 6.12 advertises DRIVER_SYNCOBJ_TIMELINE";
}

TEST_F(TimelineTest, CpuSignalAdvancesTheCounter) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  EXPECT_EQ(BATON_ASSERT_OK(tl.last_signalled()), 0u);
  EXPECT_FALSE(BATON_ASSERT_OK(tl.wait(5, WaitFor::signalled, 10ms)));
  ASSERT_OK(tl.signal(5));
  EXPECT_EQ(BATON_ASSERT_OK(tl.last_signalled()), 5u);
  EXPECT_TRUE(BATON_ASSERT_OK(tl.wait(3, WaitFor::signalled, 0ms))) << "earlier points are done";
  EXPECT_TRUE(BATON_ASSERT_OK(tl.wait(5, WaitFor::signalled, 0ms)));
  auto file = BATON_ASSERT_OK(tl.export_sync_file(5));
  EXPECT_TRUE(BATON_ASSERT_OK(file.signalled()));
}

TEST_F(TimelineTest, FdRoundTripIsTheSameTimeline) {
  // What a linux-drm-syncobj-v1 client does: export an fd, the compositor
  // imports it on its own open file of the device.
  auto client = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  UniqueFd fd = BATON_ASSERT_OK(client.export_fd());
  auto server_node = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::render));
  auto server = BATON_ASSERT_OK(Timeline::import_fd(server_node.get(), fd));
  ASSERT_OK(client.signal(7));
  EXPECT_EQ(BATON_ASSERT_OK(server.last_signalled()), 7u);
}

TEST_F(TimelineTest, OutlivesTheDrmFdItWasMadeOn) {
  auto node = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::render));
  auto tl = BATON_ASSERT_OK(Timeline::create(node.get()));
  node.reset();
  ASSERT_OK(tl.signal(1));
  EXPECT_EQ(BATON_ASSERT_OK(tl.last_signalled()), 1u);
  Timeline moved = std::move(tl);
  EXPECT_EQ(BATON_ASSERT_OK(moved.last_signalled()), 1u);
}

TEST_F(TimelineTest, PendingSyncFileAtAPoint) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  auto fence = BATON_ASSERT_OK(testing::make_pending_fence(vgem_.get()));
  UniqueFd available = BATON_ASSERT_OK(tl.eventfd(2, WaitFor::available));
  UniqueFd signalled = BATON_ASSERT_OK(tl.eventfd(2, WaitFor::signalled));
  EXPECT_FALSE(readable(available, 0)) << "point 2 has no fence yet";
  EXPECT_FALSE(readable(signalled, 0));

  ASSERT_OK(tl.import_sync_file(2, fence.sync_file));
  EXPECT_TRUE(readable(available, 1000)) << "WAIT_AVAILABLE fires once the point has a fence";
  EXPECT_FALSE(readable(signalled, 100)) << "the fence itself is still unsignalled";
  EXPECT_FALSE(BATON_ASSERT_OK(tl.wait(2, WaitFor::signalled, 50ms)));
  EXPECT_TRUE(BATON_ASSERT_OK(tl.wait(2, WaitFor::available, 0ms)));
  EXPECT_EQ(BATON_ASSERT_OK(tl.last_signalled()), 0u);
  auto exported = BATON_ASSERT_OK(tl.export_sync_file(2));
  EXPECT_FALSE(BATON_ASSERT_OK(exported.signalled()));

  // An eventfd registered after the point materialized behaves the same.
  UniqueFd late = BATON_ASSERT_OK(tl.eventfd(2, WaitFor::signalled));
  EXPECT_FALSE(readable(late, 0));

  ASSERT_OK(fence.fence.signal());
  EXPECT_TRUE(readable(signalled, 1000));
  EXPECT_TRUE(readable(late, 1000));
  EXPECT_TRUE(BATON_ASSERT_OK(exported.wait(1000ms)));
  EXPECT_EQ(BATON_ASSERT_OK(tl.last_signalled()), 2u);
}

TEST_F(TimelineTest, EventfdOnAnAlreadySignalledPointFiresAtOnce) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  ASSERT_OK(tl.signal(4));
  UniqueFd signalled = BATON_ASSERT_OK(tl.eventfd(3, WaitFor::signalled));
  EXPECT_TRUE(readable(signalled, 1000));
}

TEST_F(TimelineTest, CpuSignalOfAFuturePointWakesBothKindsOfWaiter) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  UniqueFd available = BATON_ASSERT_OK(tl.eventfd(3, WaitFor::available));
  UniqueFd signalled = BATON_ASSERT_OK(tl.eventfd(3, WaitFor::signalled));
  ASSERT_OK(tl.signal(3));
  EXPECT_TRUE(readable(available, 1000));
  EXPECT_TRUE(readable(signalled, 1000));
}

TEST_F(TimelineTest, TransferCarriesTheFenceToAnotherTimeline) {
  auto acquire = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  auto release = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  auto fence = BATON_ASSERT_OK(testing::make_pending_fence(vgem_.get()));
  ASSERT_OK(acquire.import_sync_file(3, fence.sync_file));
  ASSERT_OK(release.transfer_from(7, acquire, 3));
  EXPECT_TRUE(BATON_ASSERT_OK(release.wait(7, WaitFor::available, 0ms)));
  EXPECT_FALSE(BATON_ASSERT_OK(release.wait(7, WaitFor::signalled, 20ms)));
  ASSERT_OK(fence.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(release.wait(7, WaitFor::signalled, 1000ms)));
  EXPECT_EQ(BATON_ASSERT_OK(release.last_signalled()), 7u);
}

TEST_F(TimelineTest, ExportOfAPointWithoutFenceFails) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  auto file = tl.export_sync_file(9);
  ASSERT_FALSE(file.ok()) << "point 9 was never submitted";
  std::string what = file.error().describe();
  EXPECT_EQ(what.rfind("DRM_IOCTL_SYNCOBJ_TRANSFER", 0), 0u) << what;
  RecordProperty("errno", what);
  std::printf("export of an unsubmitted point: %s\n", what.c_str());
}

TEST_F(TimelineTest, WaitForSubmitTimesOutOnANeverSubmittedPoint) {
  auto tl = BATON_ASSERT_OK(Timeline::create(gpu_.get()));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(BATON_ASSERT_OK(tl.wait(1, WaitFor::available, 100ms)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 90ms);
}

}  // namespace
}  // namespace baton
