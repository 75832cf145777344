#include "tests/support/held_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace baton::test {

std::multiset<std::string> open_fds() {
  std::multiset<std::string> targets;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    targets.insert(std::filesystem::read_symlink(entry.path(), error).string());
  }
  return targets;
}

std::multiset<std::string> mapped_files() {
  std::multiset<std::string> files;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // address perms offset dev inode [path]: the path starts at the sixth field.
    std::istringstream fields(line);
    std::string skip;
    for (int i = 0; i < 5; ++i) fields >> skip;
    std::string path;
    std::getline(fields >> std::ws, path);
    if (!path.empty() && path.front() == '/') files.insert(path);
  }
  return files;
}

std::string added(const std::multiset<std::string>& before,
                  const std::multiset<std::string>& after) {
  std::vector<std::string> extra;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(extra));
  std::string text;
  for (const std::string& entry : extra) text += " " + entry;
  return text;
}

}  // namespace baton::test
