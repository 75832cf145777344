// Exactly one pixman in baton's process. wlroots 0.19.2 asks for pixman 0.43
// and Debian 12 has 0.42; baton bridges the gap inside wlroots (see
// meson.build) rather than loading a second, newer pixman beside the system
// one. This reads what a running baton really mapped, and checks that neither
// baton nor libwlroots carries a static copy.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

/// The distinct files mapped into `pid` whose name contains `needle`.
std::set<std::string> mapped_files(pid_t pid, const std::string& needle) {
  std::set<std::string> files;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find(needle) != std::string::npos) files.insert(path);
  }
  return files;
}

/// The pixman functions `file` defines itself (its own copy), by nm.
std::string defined_pixman_symbols(const std::string& file) {
  const std::string command = "nm --defined-only --dynamic '" + file +
                              "' 2>/dev/null; nm --defined-only '" + file + "' 2>/dev/null";
  std::string found;
  if (FILE* pipe = popen(command.c_str(), "r"); pipe != nullptr) {
    char line[512];
    while (fgets(line, sizeof(line), pipe) != nullptr) {
      const std::string s = line;
      if (s.find(" T pixman_") != std::string::npos) found += s;
    }
    pclose(pipe);
  }
  return found;
}

void expect_one_pixman(const std::string& name, const std::vector<std::string>& extra_args) {
  const std::string dir = scratch_dir(name);
  std::vector<std::string> argv = {baton_exe(), "--backend", "headless", "-s", "weston-simple-shm"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  Process baton(argv, {}, dir + "/baton.log");
  // Running, with a client drawing: everything it will load is loaded.
  ASSERT_TRUE(wait_for_text(dir + "/baton.log", "started 'weston-simple-shm'", milliseconds(20000)))
      << read_file(dir + "/baton.log");
  std::this_thread::sleep_for(milliseconds(500));
  const std::set<std::string> pixmans = mapped_files(baton.pid(), "libpixman");
  ASSERT_EQ(pixmans.size(), 1U) << "pixman libraries mapped: " << [&] {
    std::string all;
    for (const auto& p : pixmans) all += p + " ";
    return all;
  }();
  EXPECT_NE(pixmans.begin()->find("libpixman-1.so.0"), std::string::npos) << *pixmans.begin();
  // No private copy linked in statically either.
  EXPECT_EQ(defined_pixman_symbols(baton_exe()), "");
  for (const std::string& wlroots : mapped_files(baton.pid(), "libwlroots"))
    EXPECT_EQ(defined_pixman_symbols(wlroots), "") << wlroots;
  EXPECT_FALSE(baton.wait(milliseconds(0)).has_value()) << "baton exited early";
}

TEST(OnePixman, WithThePixmanRenderer) {
  expect_one_pixman("one-pixman-pixman", {"--renderer", "pixman"});
}

TEST(OnePixman, WithTheVulkanRenderer) {
  expect_one_pixman("one-pixman-vulkan", {"--renderer", "vulkan"});
}

}  // namespace
}  // namespace baton::test
