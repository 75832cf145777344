// The command line and the process lifecycle, as a user meets them.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

struct BatonRun {
  std::optional<int> status;
  std::string log;
};

BatonRun baton(const std::string& name, const std::vector<std::string>& args,
               milliseconds timeout = milliseconds(10000),
               const std::map<std::string, std::string>& env = {}) {
  std::string log = scratch_dir(name) + "/baton.log";
  BatonRun run;
  run.status = run_baton(args, log, timeout, env);
  run.log = read_file(log);
  return run;
}

TEST(Cli, HelpListsTheOptions) {
  BatonRun r = baton("help", {"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* option :
       {"--startup", "--backend", "--renderer", "--headless-size", "--outputs", "--screenshot",
        "--exit-after-screenshot", "--exit-with-session", "--config", "--debug", "--version"})
    EXPECT_NE(r.log.find(option), std::string::npos) << option;
}

TEST(Cli, Version) {
  BatonRun r = baton("version", {"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.log.find("baton " BATON_VERSION), std::string::npos) << r.log;
}

TEST(Cli, UnknownOptionPrintsUsageAndExitsTwo) {
  BatonRun r = baton("unknown", {"--frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.log.find("unknown option '--frobnicate'"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("Usage:"), std::string::npos);
}

TEST(Cli, UnavailableBackendsSayWhatIsMissing) {
  BatonRun wayland =
      baton("no-wayland", {"--backend", "wayland"}, milliseconds(10000), {{"WAYLAND_DISPLAY", ""}});
  EXPECT_EQ(wayland.status, 1);
  EXPECT_NE(wayland.log.find("WAYLAND_DISPLAY is not set"), std::string::npos) << wayland.log;

  BatonRun x11 = baton("no-x11", {"--backend", "x11"}, milliseconds(10000), {{"DISPLAY", ""}});
  EXPECT_EQ(x11.status, 1);
  EXPECT_NE(x11.log.find("DISPLAY is not set"), std::string::npos) << x11.log;

  BatonRun parent = baton("dead-parent", {"--backend", "wayland"}, milliseconds(10000),
                          {{"WAYLAND_DISPLAY", "baton-no-such-socket"}});
  EXPECT_EQ(parent.status, 1);
  EXPECT_NE(parent.log.find("could not connect to the parent compositor"), std::string::npos)
      << parent.log;
}

TEST(Cli, DrmWithoutASeatOrGpuIsAClearError) {
  if (std::filesystem::exists("/dev/dri"))
    GTEST_SKIP() << "this machine has /dev/dri; the DRM backend is exercised in the VM suite";
  BatonRun r =
      baton("no-drm", {"--backend", "drm"}, milliseconds(5000), {{"LIBSEAT_BACKEND", "noop"}});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("backend 'drm' unavailable"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("/dev/dri does not exist"), std::string::npos) << r.log;
}

TEST(Cli, UnopenableDrmDeviceNamesTheErrno) {
  BatonRun r = baton("no-drm-device", {"--backend", "headless", "--renderer", "pixman",
                                       "--drm-device", "/nonexistent/renderD128"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("--drm-device /nonexistent/renderD128: open: No such file or directory"),
            std::string::npos)
      << r.log;
}

TEST(Cli, PixmanAdvertisesNeitherDmabufNorExplicitSync) {
  // pixman cannot import dma-bufs; explicit sync without them would be a lie.
  BatonRun r = baton("pixman-buffers", {"--backend", "headless", "--renderer", "pixman",
                                        "--exit-with-session", "--startup", "true"});
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("buffers: linux-dmabuf-v1 off, linux-drm-syncobj-v1 off"), std::string::npos)
      << r.log;
}

TEST(Cli, MissingConfigFileIsReported) {
  BatonRun r = baton("no-config", {"-c", "/nonexistent/baton.conf", "--backend", "headless"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("/nonexistent/baton.conf"), std::string::npos) << r.log;
}

TEST(Lifecycle, ExitWithSessionReturnsTheSessionStatus) {
  BatonRun r = baton("session", {"--backend", "headless", "--exit-with-session", "-s", "exit 3"});
  EXPECT_EQ(r.status, 3) << r.log;
  EXPECT_NE(r.log.find("the session command exited"), std::string::npos) << r.log;
}

TEST(Lifecycle, StartupCommandSeesTheCompositorsEnvironment) {
  std::string dir = scratch_dir("startup-env");
  BatonRun r =
      baton("startup-env-run",
            {"--backend", "headless", "--socket", "baton-env-test", "--exit-with-session", "-s",
             "echo \"$WAYLAND_DISPLAY $XDG_CURRENT_DESKTOP\" > " + dir + "/env.txt"});
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_EQ(read_file(dir + "/env.txt"), "baton-env-test baton\n");
}

TEST(Lifecycle, SigtermShutsDownCleanly) {
  std::string dir = scratch_dir("sigterm");
  std::string runtime = std::getenv("XDG_RUNTIME_DIR");
  Process p({baton_exe(), "--backend", "headless", "--socket", "baton-sigterm-test"}, {},
            dir + "/baton.log");
  ASSERT_TRUE(wait_for_text(dir + "/baton.log", "running on WAYLAND_DISPLAY", milliseconds(10000)));
  EXPECT_TRUE(std::filesystem::exists(runtime + "/baton-sigterm-test"));
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(milliseconds(5000)), 0);
  EXPECT_FALSE(std::filesystem::exists(runtime + "/baton-sigterm-test")) << "socket left behind";
}

}  // namespace
}  // namespace baton::test
