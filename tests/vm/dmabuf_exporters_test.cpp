// In the guest: the exporter names sync/dmabuf_exporter.hpp relies on, read
// from the kernel for every exporter the guest has (udmabuf, vgem and
// virtio-gpu dumb buffers, the system dma-heap, vivid's V4L2 buffers), and
// which of them baton reads as LINEAR when a client sends the implicit
// modifier. Each name is printed, so the allow-list is checked, not guessed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/dma-heap.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "sync/dmabuf_exporter.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/producer_buffer.hpp"
#include "util/unique_fd.hpp"

namespace baton::testing {
namespace {

// The exporter of `fd`, printed for the log.
std::string exporter_of(int fd, const char* what) {
  auto name = sync::dmabuf_exporter(fd);
  EXPECT_TRUE(name.ok()) << what << ": " << (name ? "" : name.error().describe());
  if (!name) return {};
  std::printf("dmabuf-exporters: %s: exp_name \"%s\", implicit read as LINEAR: %s\n", what,
              name->c_str(), sync::exporter_is_linear_only(*name) ? "yes" : "no (refused)");
  return *name;
}

TEST(DmabufExporters, UdmabufIsLinearOnly) {
  auto buffer = ProducerBuffer::create(Allocator::udmabuf, -1, 64, 64);
  ASSERT_TRUE(buffer.ok()) << buffer.error().describe();
  EXPECT_EQ(exporter_of(buffer->dmabuf(), "udmabuf"), "udmabuf");
  const int fds[] = {buffer->dmabuf()};
  EXPECT_TRUE(sync::implicit_layout_is_linear(fds).ok());
}

// vgem exports as "drm" (the DRM core's PRIME helper, which GPU drivers use
// too) and virtio-gpu as "virtio_gpu": neither is read as LINEAR.
TEST(DmabufExporters, DrmDumbBuffersAreNot) {
  for (auto [driver, allocator] :
       {std::pair{"vgem", Allocator::vgem}, std::pair{"virtio_gpu", Allocator::virtio_gpu}}) {
    auto card = open_drm_node(driver, NodeKind::primary);
    ASSERT_TRUE(card.ok()) << driver << ": " << card.error().describe();
    auto buffer = ProducerBuffer::create(allocator, card->get(), 64, 64);
    ASSERT_TRUE(buffer.ok()) << buffer.error().describe();
    const std::string name = exporter_of(buffer->dmabuf(), driver);
    EXPECT_FALSE(sync::exporter_is_linear_only(name)) << driver << " exports as " << name;
    const int fds[] = {buffer->dmabuf()};
    const Status linear = sync::implicit_layout_is_linear(fds);
    ASSERT_FALSE(linear.ok());
    std::printf("dmabuf-exporters: %s refused: %s\n", driver, linear.error().describe().c_str());
  }
}

TEST(DmabufExporters, NotADmabuf) {
  UniqueFd pipe_end(open("/proc/self/stat", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(pipe_end);
  EXPECT_FALSE(sync::dmabuf_exporter(pipe_end.get()).ok());
}

TEST(DmabufExporters, SystemHeapIsLinearOnly) {
  UniqueFd heap(open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC));
  if (!heap) GTEST_SKIP() << "no /dev/dma_heap/system in this kernel: \"system\" is unverified";
  dma_heap_allocation_data alloc{};
  alloc.len = uint64_t{64} * 64 * 4;
  alloc.fd_flags = O_RDWR | O_CLOEXEC;
  ASSERT_EQ(ioctl(heap.get(), DMA_HEAP_IOCTL_ALLOC, &alloc), 0);
  UniqueFd buffer(static_cast<int>(alloc.fd));
  EXPECT_EQ(exporter_of(buffer.get(), "dma-heap system"), "system");
}

// vivid (modprobe vivid): a V4L2 capture buffer exported with VIDIOC_EXPBUF.
TEST(DmabufExporters, VividIsLinearOnly) {
  UniqueFd video;
  for (int i = 0; i < 16 && !video; ++i) {
    UniqueFd dev(open(("/dev/video" + std::to_string(i)).c_str(), O_RDWR | O_CLOEXEC));
    v4l2_capability cap{};
    if (dev && ioctl(dev.get(), VIDIOC_QUERYCAP, &cap) == 0 &&
        std::string(reinterpret_cast<const char*>(cap.driver)) == "vivid" &&
        (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE))
      video = std::move(dev);
  }
  if (!video) GTEST_SKIP() << "no vivid capture device (modprobe vivid)";
  v4l2_requestbuffers req{};
  req.count = 1;
  req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  req.memory = V4L2_MEMORY_MMAP;
  ASSERT_EQ(ioctl(video.get(), VIDIOC_REQBUFS, &req), 0);
  ASSERT_GE(req.count, 1u);
  v4l2_exportbuffer exp{};
  exp.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  exp.index = 0;
  exp.flags = O_RDONLY | O_CLOEXEC;
  ASSERT_EQ(ioctl(video.get(), VIDIOC_EXPBUF, &exp), 0);
  UniqueFd buffer(exp.fd);
  const std::string name = exporter_of(buffer.get(), "vivid");
  EXPECT_TRUE(sync::exporter_is_linear_only(name)) << "vivid exports as " << name;
}

}  // namespace
}  // namespace baton::testing
