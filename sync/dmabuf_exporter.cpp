#include "sync/dmabuf_exporter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "util/unique_fd.hpp"

namespace baton::sync {
namespace {

// Exporters with no layout but linear, by the name the kernel gives them,
// each seen in the guest (tests/vm/dmabuf_exporters_test.cpp). V4L2's other
// videobuf2 allocators (videobuf2_dma_contig, videobuf2_dma_sg) are linear
// too but were not seen there, so they are not listed yet.
constexpr std::array<std::string_view, 3> kLinearOnly = {
    "udmabuf",            // memfd pages (drivers/dma-buf/udmabuf.c)
    "system",             // the system dma-heap (/dev/dma_heap/system)
    "videobuf2_vmalloc",  // V4L2 capture buffers, e.g. vivid's
};

}  // namespace

Result<std::string> dmabuf_exporter(int fd) {
  const std::string path = "/proc/self/fdinfo/" + std::to_string(fd);
  UniqueFd info(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!info) return last_error("open " + path);
  // fdinfo of a dma-buf is a few short lines; 4 KiB holds it.
  std::string text(4096, '\0');
  ssize_t n;
  do n = read(info.get(), text.data(), text.size());
  while (n < 0 && errno == EINTR);
  if (n < 0) return last_error("read " + path);
  text.resize(static_cast<size_t>(n));
  constexpr std::string_view kKey = "exp_name:";
  for (size_t line = 0; line < text.size();) {
    size_t end = text.find('\n', line);
    if (end == std::string::npos) end = text.size();
    std::string_view entry(text.data() + line, end - line);
    if (entry.starts_with(kKey)) {
      entry.remove_prefix(kKey.size());
      while (!entry.empty() && (entry.front() == ' ' || entry.front() == '\t'))
        entry.remove_prefix(1);
      return std::string(entry);
    }
    line = end + 1;
  }
  return failure("the exporter of fd " + std::to_string(fd),
                 "its fdinfo has no exp_name (not a dma-buf)");
}

bool exporter_is_linear_only(std::string_view exporter) {
  for (std::string_view name : kLinearOnly)
    if (exporter == name) return true;
  return false;
}

Status implicit_layout_is_linear(std::span<const int> fds) {
  for (size_t plane = 0; plane < fds.size(); ++plane) {
    auto exporter = dmabuf_exporter(fds[plane]);
    if (!exporter) return exporter.error();
    if (!exporter_is_linear_only(*exporter))
      return failure("reading plane " + std::to_string(plane) + " as LINEAR",
                     "its exporter \"" + *exporter +
                         "\" may tile it, and an implicit modifier does not say how");
  }
  return {};
}

}  // namespace baton::sync
