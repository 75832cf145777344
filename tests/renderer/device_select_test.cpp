#include "renderer/vulkan/device/device_select.hpp"

#include <gtest/gtest.h>

namespace baton::vulkan {
namespace {

std::vector<DeviceCandidate> devices() {
  DeviceCandidate cpu{0, "llvmpipe (LLVM 15)", DeviceKind::cpu, "", std::nullopt, std::nullopt};
  DeviceCandidate gpu{1,  "NVIDIA H100", DeviceKind::discrete,
                      "", std::nullopt,  std::optional<uint64_t>(0xe280)};
  DeviceCandidate old{
      2,           "Old GPU", DeviceKind::integrated, "needs Vulkan 1.3, has 1.1", std::nullopt,
      std::nullopt};
  return {cpu, gpu, old};
}

TEST(DeviceSelect, PrefersARealGpuOverTheCpu) {
  DeviceSelection s = select_device(devices(), {});
  EXPECT_EQ(s.chosen, 1);
}

// --renderer vulkan: a CPU device is accepted.
TEST(DeviceSelect, TakesLavapipeWhenItIsAllThereIs) {
  auto list = devices();
  list.erase(list.begin() + 1);
  DeviceRequest vulkan;
  vulkan.accept_cpu = true;
  DeviceSelection s = select_device(list, vulkan);
  EXPECT_EQ(s.chosen, 0);
  EXPECT_FALSE(s.declined_cpu);
}

// --renderer auto: a CPU device is never chosen; pixman takes over.
TEST(DeviceSelect, AutoNeverChoosesACpuDevice) {
  DeviceRequest automatic;
  automatic.accept_cpu = false;
  auto list = devices();
  list.erase(list.begin() + 1);  // lavapipe, and a GPU too old to use
  DeviceSelection s = select_device(list, automatic);
  EXPECT_EQ(s.chosen, -1);
  EXPECT_TRUE(s.declined_cpu);
  EXPECT_EQ(s.reason, "every usable Vulkan device is a CPU");
  EXPECT_NE(s.report.find("llvmpipe (LLVM 15) (CPU): usable"), std::string::npos) << s.report;
  EXPECT_NE(s.report.find("refused, needs Vulkan 1.3"), std::string::npos) << s.report;

  list[0].render_node = 0xe281;  // even on the outputs' node
  automatic.drm_node = 0xe281;
  EXPECT_EQ(select_device(list, automatic).chosen, -1);
}

TEST(DeviceSelect, AutoStillChoosesAGpu) {
  DeviceRequest automatic;
  automatic.accept_cpu = false;
  EXPECT_EQ(select_device(devices(), automatic).chosen, 1);
  automatic.drm_node = 0xe280;  // DRM: the GPU that drives the outputs
  DeviceSelection s = select_device(devices(), automatic);
  EXPECT_EQ(s.chosen, 1);
  EXPECT_EQ(s.reason, "it drives the outputs' DRM node");
  automatic.drm_node = 0xe2ff;  // outputs on a display-only device (vkms, simpledrm)
  EXPECT_EQ(select_device(devices(), automatic).chosen, 1);
}

TEST(DeviceSelect, AutoTakesACpuDeviceTheUserNames) {
  DeviceRequest automatic;
  automatic.accept_cpu = false;
  automatic.name_or_index = "llvmpipe";
  EXPECT_EQ(select_device(devices(), automatic).chosen, 0);
}

TEST(DeviceSelect, NoUsableDeviceIsNotADeclinedCpu) {
  auto list = devices();
  for (auto& d : list) d.refusal = "lacks " + d.name;
  DeviceRequest automatic;
  automatic.accept_cpu = false;
  DeviceSelection s = select_device(list, automatic);
  EXPECT_EQ(s.chosen, -1);
  EXPECT_FALSE(s.declined_cpu);
}

TEST(DeviceSelect, PrefersTheDeviceOnTheOutputsDrmNode) {
  auto list = devices();
  list[0].render_node = 0xe281;
  DeviceRequest request;
  request.drm_node = 0xe281;
  EXPECT_EQ(select_device(list, request).chosen, 0);
}

TEST(DeviceSelect, OverrideByIndexAndByName) {
  DeviceRequest by_index;
  by_index.name_or_index = "0";
  EXPECT_EQ(select_device(devices(), by_index).chosen, 0);
  DeviceRequest by_name;
  by_name.name_or_index = "h100";
  EXPECT_EQ(select_device(devices(), by_name).chosen, 1);
}

TEST(DeviceSelect, RefusedOverrideExplainsWhy) {
  DeviceRequest request;
  request.name_or_index = "old";
  DeviceSelection s = select_device(devices(), request);
  EXPECT_EQ(s.chosen, -1);
  EXPECT_NE(s.reason.find("needs Vulkan 1.3"), std::string::npos);
}

TEST(DeviceSelect, ReportListsEveryDeviceAndEveryRefusal) {
  auto list = devices();
  for (auto& d : list) d.refusal = "lacks " + d.name;
  DeviceSelection s = select_device(list, {});
  EXPECT_EQ(s.chosen, -1);
  for (auto& d : list) EXPECT_NE(s.report.find("lacks " + d.name), std::string::npos) << s.report;
}

}  // namespace
}  // namespace baton::vulkan
