#include "tests/support/fake_dmabuf.hpp"

#include <drm_fourcc.h>
#include <sys/sysmacros.h>
#include <xf86drm.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "util/wlr.hpp"

// libdrm's device lookup, answered here for the one device the fake global
// names (this program's definition comes before libdrm's for wlroots too).
// A device with a primary node and no render node: wlroots then opens
// nothing and leaves the import check to the callback below. As libdrm does,
// the device is one allocation, freed by drmFreeDevice.
extern "C" int drmGetDeviceFromDevId(dev_t device_id, uint32_t /*flags*/, drmDevicePtr* device) {
  static constexpr char kName[] = "/dev/dri/card-fuzz";
  struct Block {
    drmDevice device;
    char* nodes[DRM_NODE_MAX];
    char name[sizeof(kName)];
  };
  if (device_id != makedev(226, 0)) return -ENODEV;
  auto* block = static_cast<Block*>(std::calloc(1, sizeof(Block)));
  if (block == nullptr) return -ENOMEM;
  std::memcpy(block->name, kName, sizeof(kName));
  block->nodes[DRM_NODE_PRIMARY] = block->name;
  block->device.nodes = block->nodes;
  block->device.available_nodes = 1 << DRM_NODE_PRIMARY;
  block->device.bustype = DRM_BUS_PLATFORM;
  *device = &block->device;
  return 0;
}

namespace baton::test {

wlr_linux_dmabuf_v1* offer_fake_linux_dmabuf(wl_display* display) {
  // The device number of a first DRM card; nothing opens it.
  wlr_linux_dmabuf_feedback_v1 feedback{};
  feedback.main_device = makedev(226, 0);
  wl_array_init(&feedback.tranches);
  wlr_linux_dmabuf_feedback_v1_tranche* tranche = wlr_linux_dmabuf_feedback_add_tranche(&feedback);
  wlr_linux_dmabuf_v1* global = nullptr;
  if (tranche != nullptr) {
    tranche->target_device = feedback.main_device;
    bool added = true;
    for (uint32_t format : {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888})
      for (uint64_t modifier : {DRM_FORMAT_MOD_LINEAR, DRM_FORMAT_MOD_INVALID})
        added = added && wlr_drm_format_set_add(&tranche->formats, format, modifier);
    if (added) global = wlr_linux_dmabuf_v1_create(display, 5, &feedback);
  }
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
  if (global != nullptr)
    wlr_linux_dmabuf_v1_set_check_dmabuf_callback(
        global, [](wlr_dmabuf_attributes*, void*) { return true; }, nullptr);
  return global;
}

}  // namespace baton::test
