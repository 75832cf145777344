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

TEST(DeviceSelect, TakesLavapipeWhenItIsAllThereIs) {
  auto list = devices();
  list.erase(list.begin() + 1);
  DeviceSelection s = select_device(list, {});
  EXPECT_EQ(s.chosen, 0);
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
