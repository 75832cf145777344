// Which modifier a swapchain slot is allocated with, and how its dma-buf is
// described, on devices this machine does not have: the device's modifier
// properties are fabricated here, as an AMD GPU with DCC and an Intel GPU
// with CCS would list them (compression metadata in extra memory planes).
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <vector>

#include "renderer/vulkan/swapchain/exported_image.hpp"

namespace baton::vulkan {
namespace {

// A GFX10 64K_R_X tiling with DCC: pixels plus a DCC plane...
constexpr uint64_t kAmdDcc =
    AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX10) |
    AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_R_X) | AMD_FMT_MOD_SET(DCC, 1);
// ... and retiled for the display: a third plane.
constexpr uint64_t kAmdDccRetile = kAmdDcc | AMD_FMT_MOD_SET(DCC_RETILE, 1);
constexpr uint64_t kIntelCcs = I915_FORMAT_MOD_Y_TILED_GEN12_RC_CCS;       // pixels + CCS
constexpr uint64_t kIntelCcsCc = I915_FORMAT_MOD_Y_TILED_GEN12_RC_CCS_CC;  // + clear colour
constexpr uint64_t kIntelX = I915_FORMAT_MOD_X_TILED;

// What exported slots are drawn with (color attachment, sampled, copied from).
constexpr VkFormatFeatureFlags kSlotFeatures = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                               VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                               VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
constexpr VkFormatFeatureFlags kAll = kSlotFeatures | VK_FORMAT_FEATURE_BLIT_SRC_BIT;

VkDrmFormatModifierPropertiesEXT listed(uint64_t modifier, uint32_t planes,
                                        VkFormatFeatureFlags features = kAll) {
  return {modifier, planes, features};
}

// A GPU whose best modifiers are compressed and multi-planar.
const std::vector<VkDrmFormatModifierPropertiesEXT> kDevice = {
    listed(kAmdDccRetile, 3), listed(kAmdDcc, 2), listed(kIntelCcs, 2),
    listed(kIntelCcsCc, 3),   listed(kIntelX, 1), listed(DRM_FORMAT_MOD_LINEAR, 1),
};

std::vector<uint64_t> choose(const std::vector<VkDrmFormatModifierPropertiesEXT>& device,
                             const std::vector<uint64_t>& offered) {
  return slot_modifier_candidates(device, offered, kSlotFeatures);
}

using Modifiers = std::vector<uint64_t>;

TEST(SlotModifier, MultiPlaneCompressedModifiersAreKeptInTheConsumersOrder) {
  EXPECT_EQ(
      choose(kDevice, {kAmdDccRetile, kAmdDcc, kIntelCcsCc, kIntelCcs, DRM_FORMAT_MOD_LINEAR}),
      (Modifiers{kAmdDccRetile, kAmdDcc, kIntelCcsCc, kIntelCcs, DRM_FORMAT_MOD_LINEAR}));
  EXPECT_EQ(choose(kDevice, {DRM_FORMAT_MOD_LINEAR, kIntelCcs}),
            (Modifiers{DRM_FORMAT_MOD_LINEAR, kIntelCcs}));
}

TEST(SlotModifier, OnlyWhatTheConsumerLists) {
  // A plane that takes LINEAR only gets LINEAR, however good DCC would be.
  EXPECT_EQ(choose(kDevice, {DRM_FORMAT_MOD_LINEAR}), (Modifiers{DRM_FORMAT_MOD_LINEAR}));
  // DCC without retiling is not DCC with it: the plane count is the modifier's.
  EXPECT_EQ(choose(kDevice, {kAmdDcc}), (Modifiers{kAmdDcc}));
  EXPECT_EQ(choose(kDevice, {}), Modifiers{});
}

TEST(SlotModifier, OnlyWhatTheDeviceListsForTheFormat) {
  const std::vector<VkDrmFormatModifierPropertiesEXT> linear_only = {
      listed(DRM_FORMAT_MOD_LINEAR, 1)};
  EXPECT_EQ(choose(linear_only, {kAmdDccRetile, kIntelCcs, DRM_FORMAT_MOD_LINEAR}),
            (Modifiers{DRM_FORMAT_MOD_LINEAR}));
  EXPECT_EQ(choose({}, {DRM_FORMAT_MOD_LINEAR}), Modifiers{});
}

TEST(SlotModifier, NeverTheImplicitModifier) {
  EXPECT_EQ(choose(kDevice, {DRM_FORMAT_MOD_INVALID}), Modifiers{});
  // Even where a (broken) device lists it.
  EXPECT_EQ(choose({listed(DRM_FORMAT_MOD_INVALID, 1)}, {DRM_FORMAT_MOD_INVALID}), Modifiers{});
}

TEST(SlotModifier, OnlyModifiersTheDeviceRendersInto) {
  const std::vector<VkDrmFormatModifierPropertiesEXT> device = {
      listed(kAmdDccRetile, 3, kSlotFeatures & ~VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT),
      listed(kIntelCcs, 2, kSlotFeatures & ~VK_FORMAT_FEATURE_TRANSFER_SRC_BIT),
      listed(DRM_FORMAT_MOD_LINEAR, 1, kSlotFeatures)};
  EXPECT_EQ(choose(device, {kAmdDccRetile, kIntelCcs, DRM_FORMAT_MOD_LINEAR}),
            (Modifiers{DRM_FORMAT_MOD_LINEAR}));
}

TEST(SlotModifier, OnlyPlaneCountsADmabufCanDescribe) {
  const std::vector<VkDrmFormatModifierPropertiesEXT> device = {
      listed(kAmdDccRetile, 0), listed(kIntelCcsCc, WLR_DMABUF_MAX_PLANES + 1),
      listed(kIntelCcs, WLR_DMABUF_MAX_PLANES)};
  EXPECT_EQ(choose(device, {kAmdDccRetile, kIntelCcsCc, kIntelCcs}), (Modifiers{kIntelCcs}));
}

TEST(SlotModifier, NoModifierTwice) {
  EXPECT_EQ(choose(kDevice, {kAmdDcc, DRM_FORMAT_MOD_LINEAR, kAmdDcc}),
            (Modifiers{kAmdDcc, DRM_FORMAT_MOD_LINEAR}));
}

TEST(SlotModifier, MemoryPlaneCountIsTheDevicesForThatModifier) {
  EXPECT_EQ(memory_plane_count(kDevice, kAmdDccRetile), 3u);
  EXPECT_EQ(memory_plane_count(kDevice, kAmdDcc), 2u);
  EXPECT_EQ(memory_plane_count(kDevice, kIntelCcs), 2u);
  EXPECT_EQ(memory_plane_count(kDevice, DRM_FORMAT_MOD_LINEAR), 1u);
  EXPECT_EQ(memory_plane_count(kDevice, I915_FORMAT_MOD_Yf_TILED), 0u);
}

UniqueFd memfd() {
  UniqueFd fd(memfd_create("slot-modifier-test", MFD_CLOEXEC));
  EXPECT_TRUE(fd.valid());
  return fd;
}

ino_t inode(int fd) {
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  return st.st_ino;
}

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

VkSubresourceLayout layout(VkDeviceSize offset, VkDeviceSize pitch) {
  VkSubresourceLayout l{};
  l.offset = offset;
  l.rowPitch = pitch;
  return l;
}

// A 1920x1080 DCC-retiled image as a driver might lay it out: pixels, the
// displayable DCC plane, the pipe-aligned one.
const std::array<VkSubresourceLayout, 3> kDccLayouts = {layout(0, 7680), layout(0x7f8000, 256),
                                                        layout(0x820000, 512)};

TEST(SlotDmabuf, EveryMemoryPlaneWithItsOwnFdOffsetAndPitch) {
  UniqueFd fd = memfd();
  const int original = fd.get();
  const ino_t memory = inode(original);
  auto described = dmabuf_planes(std::move(fd), kAmdDccRetile, kDccLayouts);
  ASSERT_TRUE(described) << described.error().describe();
  ASSERT_EQ(described->planes.size(), 3u);
  EXPECT_EQ(described->modifier, kAmdDccRetile);
  EXPECT_EQ(described->planes[0].fd.get(), original);  // plane 0 owns the export
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(inode(described->planes[i].fd.get()), memory) << "plane " << i;
    EXPECT_EQ(described->planes[i].offset, kDccLayouts[i].offset) << "plane " << i;
    EXPECT_EQ(described->planes[i].stride, kDccLayouts[i].rowPitch) << "plane " << i;
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(described->planes[i].fd.get(), described->planes[j].fd.get())
          << "planes " << j << " and " << i << " share an fd";
  }

  const wlr_dmabuf_attributes attribs = described->attributes(1920, 1080, DRM_FORMAT_XRGB8888);
  EXPECT_EQ(attribs.n_planes, 3);
  EXPECT_EQ(attribs.modifier, kAmdDccRetile);
  EXPECT_EQ(attribs.format, DRM_FORMAT_XRGB8888);
  EXPECT_EQ(attribs.width, 1920);
  EXPECT_EQ(attribs.height, 1080);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(attribs.fd[i], described->planes[i].fd.get()) << "plane " << i;
    EXPECT_EQ(attribs.offset[i], kDccLayouts[i].offset) << "plane " << i;
    EXPECT_EQ(attribs.stride[i], kDccLayouts[i].rowPitch) << "plane " << i;
  }
  EXPECT_EQ(attribs.fd[3], 0);  // nothing past the planes
}

TEST(SlotDmabuf, EveryPlaneFdIsClosedWithTheSlot) {
  std::vector<int> fds;
  {
    auto described = dmabuf_planes(memfd(), kAmdDccRetile, kDccLayouts);
    ASSERT_TRUE(described);
    for (const ExportedPlane& p : described->planes) fds.push_back(p.fd.get());
    for (int fd : fds) EXPECT_TRUE(is_open(fd));
  }
  for (int fd : fds) EXPECT_FALSE(is_open(fd)) << "fd " << fd << " outlived its slot";
}

TEST(SlotDmabuf, LinearIsOnePlane) {
  const std::array<VkSubresourceLayout, 1> linear = {layout(0, 2560)};
  auto described = dmabuf_planes(memfd(), DRM_FORMAT_MOD_LINEAR, linear);
  ASSERT_TRUE(described);
  const wlr_dmabuf_attributes attribs = described->attributes(640, 480, DRM_FORMAT_ARGB8888);
  EXPECT_EQ(attribs.n_planes, 1);
  EXPECT_EQ(attribs.stride[0], 2560u);
  EXPECT_EQ(attribs.modifier, DRM_FORMAT_MOD_LINEAR);
}

TEST(SlotDmabuf, RefusesWhatADmabufCannotDescribe) {
  EXPECT_FALSE(dmabuf_planes(memfd(), DRM_FORMAT_MOD_LINEAR, {}));
  const std::array<VkSubresourceLayout, WLR_DMABUF_MAX_PLANES + 1> five{};
  EXPECT_FALSE(dmabuf_planes(memfd(), kAmdDccRetile, five));
  const std::array<VkSubresourceLayout, 2> far = {layout(0, 7680),
                                                  layout(VkDeviceSize{1} << 32, 256)};
  EXPECT_FALSE(dmabuf_planes(memfd(), kAmdDcc, far));
}

// As create_exported_image runs it: the modifier the driver picked from the
// candidates is described with every memory plane the device lists for it,
// each plane's layout asked of the image once.
TEST(SlotDmabuf, AChosenMultiPlaneModifierIsExportedWithAllItsPlanes) {
  for (uint64_t offered : {kAmdDccRetile, kAmdDcc, kIntelCcs, kIntelCcsCc, kIntelX}) {
    const Modifiers candidates = choose(kDevice, {offered});
    ASSERT_EQ(candidates, Modifiers{offered});
    std::vector<VkImageAspectFlagBits> asked;
    auto layout_of = [&](VkImageAspectFlagBits aspect) {
      asked.push_back(aspect);
      const VkDeviceSize i = asked.size() - 1;
      return layout(i * 0x100000, 256 << i);
    };
    auto described = describe_exported(memfd(), kDevice, candidates[0], layout_of);
    ASSERT_TRUE(described) << described.error().describe();
    const uint32_t planes = memory_plane_count(kDevice, offered);
    ASSERT_EQ(asked.size(), planes) << std::hex << offered;
    for (uint32_t i = 0; i < planes; ++i) EXPECT_EQ(asked[i], kMemoryPlaneAspects[i]);
    const wlr_dmabuf_attributes attribs = described->attributes(256, 256, DRM_FORMAT_ARGB8888);
    EXPECT_EQ(attribs.n_planes, static_cast<int>(planes)) << std::hex << offered;
    EXPECT_EQ(attribs.modifier, offered);
    for (uint32_t i = 0; i < planes; ++i) {
      EXPECT_TRUE(is_open(attribs.fd[i]));
      EXPECT_EQ(attribs.offset[i], i * 0x100000);
      EXPECT_EQ(attribs.stride[i], 256u << i);
    }
  }
}

TEST(SlotDmabuf, AModifierTheDeviceDoesNotListIsNotDescribed) {
  int asked = 0;
  auto layout_of = [&](VkImageAspectFlagBits) {
    ++asked;
    return layout(0, 256);
  };
  EXPECT_FALSE(describe_exported(memfd(), kDevice, I915_FORMAT_MOD_Yf_TILED, layout_of));
  const std::vector<VkDrmFormatModifierPropertiesEXT> five = {
      listed(kAmdDccRetile, WLR_DMABUF_MAX_PLANES + 1)};
  EXPECT_FALSE(describe_exported(memfd(), five, kAmdDccRetile, layout_of));
  EXPECT_EQ(asked, 0);
}

}  // namespace
}  // namespace baton::vulkan
