// What this process holds open: the fds and the mapped files. Tests run
// baton's Server in their own process, so these are baton's, and a test can
// check that what a refused client sent was let go.
#pragma once

#include <set>
#include <string>

namespace baton::test {

/// What each open fd points at (its /proc/self/fd link), one entry each.
std::multiset<std::string> open_fds();

/// The file of each file-backed mapping (/proc/self/maps), one entry each.
std::multiset<std::string> mapped_files();

/// The entries of `after` that were not in `before`, space-separated.
std::string added(const std::multiset<std::string>& before,
                  const std::multiset<std::string>& after);

}  // namespace baton::test
