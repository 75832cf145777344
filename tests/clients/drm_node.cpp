#include "tests/clients/drm_node.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <xf86drm.h>

#include <cerrno>
#include <memory>

namespace baton::testing {
namespace {

struct CloseDir {
  void operator()(DIR* dir) const { closedir(dir); }
};

}  // namespace

std::string drm_driver_name(int drm_fd) {
  std::unique_ptr<drmVersion, decltype(&drmFreeVersion)> version(drmGetVersion(drm_fd),
                                                                 drmFreeVersion);
  if (!version) return {};
  return std::string(version->name, version->name_len);
}

Result<UniqueFd> open_drm_node(std::string_view driver, NodeKind kind) {
  std::string_view prefix = kind == NodeKind::primary ? "card" : "renderD";
  std::unique_ptr<DIR, CloseDir> dir(opendir("/dev/dri"));
  if (!dir) return last_error("opendir(/dev/dri)");
  while (dirent* entry = readdir(dir.get())) {
    std::string_view name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    std::string path = "/dev/dri/" + std::string(name);
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (fd && drm_driver_name(fd.get()) == driver) return fd;
  }
  return Error{"open_drm_node", ENOENT};
}

}  // namespace baton::testing
