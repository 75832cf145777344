// The guest's Vulkan environment for the renderer's dma-buf tests (run with
// vm-run.sh --lavapipe): lavapipe is the only device, and with /dev/udmabuf
// it offers what a dma-buf renderer needs. It cannot be matched to a DRM node
// (no VK_EXT_physical_device_drm), which tests must not expect.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/clients/drm_node.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/vm/expect_ok.hpp"

namespace {

class LavapipeInGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance_), VK_SUCCESS);
    uint32_t n = 0;
    ASSERT_EQ(vkEnumeratePhysicalDevices(instance_, &n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 1u) << "VK_DRIVER_FILES should leave lavapipe alone";
    ASSERT_EQ(vkEnumeratePhysicalDevices(instance_, &n, &device_), VK_SUCCESS);
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(device_, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> props(count);
    vkEnumerateDeviceExtensionProperties(device_, nullptr, &count, props.data());
    for (const auto& p : props) extensions_.insert(p.extensionName);
  }
  void TearDown() override {
    if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice device_ = VK_NULL_HANDLE;
  std::set<std::string> extensions_;
};

TEST_F(LavapipeInGuest, IsLlvmpipe) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device_, &props);
  std::printf("device: %s, API %u.%u\n", props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion),
              VK_API_VERSION_MINOR(props.apiVersion));
  EXPECT_EQ(std::string(props.deviceName).rfind("llvmpipe", 0), 0u);
  EXPECT_EQ(props.deviceType, VK_PHYSICAL_DEVICE_TYPE_CPU);
}

TEST_F(LavapipeInGuest, HasTheDmabufExtensions) {
  for (const char* ext : {"VK_EXT_external_memory_dma_buf", "VK_KHR_external_memory_fd",
                          "VK_EXT_image_drm_format_modifier", "VK_KHR_external_semaphore_fd",
                          "VK_KHR_timeline_semaphore"})
    EXPECT_TRUE(extensions_.count(ext)) << ext << " missing (is /dev/udmabuf there?)";
  EXPECT_FALSE(extensions_.count("VK_EXT_physical_device_drm"))
      << "lavapipe gained VK_EXT_physical_device_drm: update tests/vm/README.md";
}

TEST_F(LavapipeInGuest, ExportsBinarySemaphoresAsSyncFiles) {
  VkPhysicalDeviceExternalSemaphoreInfo info{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  vkGetPhysicalDeviceExternalSemaphoreProperties(device_, &info, &props);
  EXPECT_TRUE(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT);
  EXPECT_TRUE(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT);
}

// FINDINGS: lavapipe's vkGetSemaphoreFdKHR(SYNC_FD) on a semaphore whose
// signal operation waits on an unsignalled fence blocks until that fence
// signals, then returns an already signalled sync_file. A renderer that
// exports its render-done fence on the compositor thread right after a
// submit that waits on a client's acquire fence stalls there on lavapipe;
// a single-threaded test that signals after exporting deadlocks. This test
// pins the behaviour so a Mesa that fixes it is noticed.
TEST_F(LavapipeInGuest, SyncFdExportBlocksOnTheSubmitsWaitFence) {
  ASSERT_TRUE(extensions_.count("VK_KHR_external_semaphore_fd"));
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  const char* device_exts[] = {"VK_KHR_external_semaphore_fd"};
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = 1;
  device_info.ppEnabledExtensionNames = device_exts;
  VkDevice device = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDevice(device_, &device_info, nullptr, &device), VK_SUCCESS);
  auto import_fd = reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(
      vkGetDeviceProcAddr(device, "vkImportSemaphoreFdKHR"));
  auto get_fd =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR"));
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, 0, 0, &queue);

  VkSemaphoreCreateInfo plain{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore acquire = VK_NULL_HANDLE, done = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(device, &plain, nullptr, &acquire), VK_SUCCESS);
  VkExportSemaphoreCreateInfo exportable{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  exportable.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  VkSemaphoreCreateInfo exportable_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportable};
  ASSERT_EQ(vkCreateSemaphore(device, &exportable_info, nullptr, &done), VK_SUCCESS);

  auto vgem =
      BATON_ASSERT_OK(baton::testing::open_drm_node("vgem", baton::testing::NodeKind::primary));
  auto pending = BATON_ASSERT_OK(baton::testing::make_pending_fence(vgem.get()));
  auto copy = BATON_ASSERT_OK(pending.sync_file.duplicate());
  VkImportSemaphoreFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
  import.semaphore = acquire;
  import.flags = VK_SEMAPHORE_IMPORT_TEMPORARY_BIT;
  import.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  import.fd = copy.fd();
  ASSERT_EQ(import_fd(device, &import), VK_SUCCESS);
  (void)copy.release().release();  // Vulkan owns the fd now

  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &acquire;
  submit.pWaitDstStageMask = &stage;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &done;
  ASSERT_EQ(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);

  // Signalled from another thread: on lavapipe the export below blocks.
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    (void)pending.fence.signal();
  });
  VkSemaphoreGetFdInfoKHR get{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  get.semaphore = done;
  get.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  int fd = -1;
  auto start = std::chrono::steady_clock::now();
  VkResult r = get_fd(device, &get, &fd);
  auto blocked = std::chrono::steady_clock::now() - start;
  signaller.join();
  baton::sync::SyncFile exported{baton::UniqueFd(fd)};
  ASSERT_EQ(r, VK_SUCCESS);
  double ms = std::chrono::duration<double, std::milli>(blocked).count();
  std::printf("vkGetSemaphoreFdKHR(SYNC_FD) returned after %.0f ms\n", ms);
  EXPECT_GE(ms, 250.0) << "lavapipe no longer blocks here: update tests/vm/README.md";
  EXPECT_TRUE(BATON_ASSERT_OK(exported.wait(std::chrono::milliseconds(1000))));

  vkQueueWaitIdle(queue);
  vkDestroySemaphore(device, acquire, nullptr);
  vkDestroySemaphore(device, done, nullptr);
  vkDestroyDevice(device, nullptr);
}

}  // namespace
