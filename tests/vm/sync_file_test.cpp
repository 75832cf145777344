// baton::sync::SyncFile against real dma-bufs in the guest: the implicit
// fences of vgem and virtio-gpu dumb buffers and of udmabufs, as a
// compositor's readiness gate and release path use them.
#include "sync/sync_file.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "tests/clients/drm_node.hpp"
#include "tests/clients/dumb_buffer.hpp"
#include "tests/clients/udmabuf.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/vm/expect_ok.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;
using sync::Access;
using sync::SyncFile;
using testing::NodeKind;

enum class Source { vgem, virtio_gpu, udmabuf };

std::string source_name(const ::testing::TestParamInfo<Source>& info) {
  switch (info.param) {
    case Source::vgem:
      return "vgem";
    case Source::virtio_gpu:
      return "virtio_gpu";
    case Source::udmabuf:
      return "udmabuf";
  }
  return "?";
}

// One dma-buf of the parameter's kind plus a vgem node for pending fences.
class DmabufSyncFile : public ::testing::TestWithParam<Source> {
 protected:
  void SetUp() override {
    vgem_ = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
    switch (GetParam()) {
      case Source::vgem:
        dumb_.emplace(BATON_ASSERT_OK(testing::DumbBuffer::create(vgem_.get(), 64, 64)));
        dmabuf_ = dumb_->dmabuf();
        break;
      case Source::virtio_gpu: {
        auto card = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::primary));
        dumb_.emplace(BATON_ASSERT_OK(testing::DumbBuffer::create(card.get(), 64, 64)));
        dmabuf_ = dumb_->dmabuf();
        break;
      }
      case Source::udmabuf:
        udmabuf_.emplace(BATON_ASSERT_OK(testing::Udmabuf::create(size_t{64} * 64 * 4)));
        dmabuf_ = udmabuf_->dmabuf();
        break;
    }
  }

  testing::PendingFence pending() {
    return BATON_EXPECT_OK_OR_DIE(testing::make_pending_fence(vgem_.get()));
  }
  bool exported_signalled(Access access) {
    auto file = SyncFile::export_from_dmabuf(dmabuf_, access);
    EXPECT_TRUE(file.ok()) << file.error().describe();
    return file && BATON_EXPECT_OK_OR_DIE(file->signalled());
  }

  UniqueFd vgem_;
  std::optional<testing::DumbBuffer> dumb_;
  std::optional<testing::Udmabuf> udmabuf_;
  int dmabuf_ = -1;
};

TEST_P(DmabufSyncFile, IdleBufferExportsSignalledFences) {
  for (Access access : {Access::read, Access::write, Access::read_write}) {
    auto file = BATON_ASSERT_OK(SyncFile::export_from_dmabuf(dmabuf_, access));
    EXPECT_TRUE(BATON_ASSERT_OK(file.signalled()));
    auto info = BATON_ASSERT_OK(file.info());
    EXPECT_EQ(info.status, 1) << "SYNC_IOC_FILE_INFO of an idle buffer's fence";
  }
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::read, 0ms)));
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::write, 0ms)));
}

TEST_P(DmabufSyncFile, WriteImportHoldsReadersAndWriters) {
  auto fence = pending();
  ASSERT_OK(fence.sync_file.import_into_dmabuf(dmabuf_, Access::write));
  auto read = BATON_ASSERT_OK(SyncFile::export_from_dmabuf(dmabuf_, Access::read));
  auto write = BATON_ASSERT_OK(SyncFile::export_from_dmabuf(dmabuf_, Access::write));
  EXPECT_FALSE(BATON_ASSERT_OK(read.signalled()));
  EXPECT_FALSE(BATON_ASSERT_OK(write.signalled()));
  EXPECT_FALSE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::read, 0ms)))
      << "poll(POLLIN) on the dma-buf must wait for its writer";

  ASSERT_OK(fence.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(read.wait(1000ms)));
  EXPECT_TRUE(BATON_ASSERT_OK(write.wait(1000ms)));
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::read, 1000ms)));
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::write, 1000ms)));
}

TEST_P(DmabufSyncFile, ReadImportHoldsOnlyWriters) {
  auto fence = pending();
  ASSERT_OK(fence.sync_file.import_into_dmabuf(dmabuf_, Access::read));
  EXPECT_TRUE(exported_signalled(Access::read)) << "a reader's fence must not hold other readers";
  EXPECT_FALSE(exported_signalled(Access::write)) << "a reader's fence must hold writers";
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::read, 0ms)));
  EXPECT_FALSE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::write, 0ms)));

  ASSERT_OK(fence.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(sync::wait_dmabuf(dmabuf_, Access::write, 1000ms)));
  EXPECT_TRUE(exported_signalled(Access::write));
}

TEST_P(DmabufSyncFile, ExportIsASnapshot) {
  auto before = BATON_ASSERT_OK(SyncFile::export_from_dmabuf(dmabuf_, Access::write));
  auto fence = pending();
  ASSERT_OK(fence.sync_file.import_into_dmabuf(dmabuf_, Access::write));
  EXPECT_TRUE(BATON_ASSERT_OK(before.signalled()))
      << "a sync_file exported earlier must not pick up later fences";
  EXPECT_FALSE(exported_signalled(Access::write));
}

INSTANTIATE_TEST_SUITE_P(Guest, DmabufSyncFile,
                         ::testing::Values(Source::vgem, Source::virtio_gpu, Source::udmabuf),
                         source_name);

class SyncFileMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    vgem_ = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  }
  UniqueFd vgem_;
};

TEST_F(SyncFileMerge, SignalsOnlyWhenBothHave) {
  auto a = BATON_ASSERT_OK(testing::make_pending_fence(vgem_.get()));
  auto b = BATON_ASSERT_OK(testing::make_pending_fence(vgem_.get()));
  auto merged = BATON_ASSERT_OK(SyncFile::merge(a.sync_file, b.sync_file));
  auto info = BATON_ASSERT_OK(merged.info());
  EXPECT_EQ(info.fence_count, 2u);
  EXPECT_EQ(info.status, 0);

  ASSERT_OK(a.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(a.sync_file.wait(1000ms)));
  EXPECT_FALSE(BATON_ASSERT_OK(merged.wait(50ms))) << "one of two fences signalled";
  ASSERT_OK(b.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(merged.wait(1000ms)));
  EXPECT_EQ(BATON_ASSERT_OK(merged.info()).status, 1);
}

TEST_F(SyncFileMerge, WithSignalledFenceFollowsThePendingOne) {
  auto idle = BATON_ASSERT_OK(testing::DumbBuffer::create(vgem_.get(), 16, 16));
  auto done = BATON_ASSERT_OK(SyncFile::export_from_dmabuf(idle.dmabuf(), Access::read));
  auto p = BATON_ASSERT_OK(testing::make_pending_fence(vgem_.get()));
  auto merged = BATON_ASSERT_OK(SyncFile::merge(done, p.sync_file));
  EXPECT_FALSE(BATON_ASSERT_OK(merged.signalled()));
  ASSERT_OK(p.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(merged.wait(1000ms)));
}

TEST(SyncFileWait, TimeoutIsHonoured) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto p = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(BATON_ASSERT_OK(p.sync_file.wait(100ms)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 90ms);
  auto copy = BATON_ASSERT_OK(p.sync_file.duplicate());
  ASSERT_OK(p.fence.signal());
  EXPECT_TRUE(BATON_ASSERT_OK(copy.wait(1000ms))) << "a duplicate is the same fence";
}

TEST(SyncFileErrors, NamedWithTheFailingCallAndErrno) {
  SyncFile not_a_sync_file(UniqueFd(eventfd(0, EFD_CLOEXEC)));
  auto info = not_a_sync_file.info();
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().code, ENOTTY);
  EXPECT_EQ(info.error().describe().rfind("SYNC_IOC_FILE_INFO: ", 0), 0u)
      << info.error().describe();
  EXPECT_NE(info.error().describe().find("ENOTTY"), std::string::npos);

  auto udmabuf = BATON_ASSERT_OK(testing::Udmabuf::create(4096));
  auto import = not_a_sync_file.import_into_dmabuf(udmabuf.dmabuf(), Access::write);
  ASSERT_FALSE(import.ok());
  EXPECT_EQ(import.error().code, EINVAL) << import.error().describe();
}

}  // namespace
}  // namespace baton
