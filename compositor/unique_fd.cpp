#include "unique_fd.hpp"

#include <fcntl.h>

namespace baton {

UniqueFd UniqueFd::duplicate() const {
  if (fd_ < 0) return {};
  return UniqueFd(fcntl(fd_, F_DUPFD_CLOEXEC, 0));
}

}  // namespace baton
