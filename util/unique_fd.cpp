#include "util/unique_fd.hpp"

#include <fcntl.h>
#include <poll.h>

namespace baton {

Result<UniqueFd> UniqueFd::duplicate_of(int fd) {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return last_error("fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(copy);
}

bool readable_now(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

}  // namespace baton
