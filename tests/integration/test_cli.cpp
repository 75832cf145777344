// The command line and the process lifecycle, as a user meets them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

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

// The environment that leaves Mesa's lavapipe the only Vulkan device, as on
// a machine without a GPU; empty when lavapipe is not installed.
std::map<std::string, std::string> lavapipe_only() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/share/vulkan/icd.d", ec)) {
    if (entry.path().filename().string().rfind("lvp_icd", 0) == 0)
      return {{"VK_DRIVER_FILES", entry.path().string()}};
  }
  return {};
}

// --renderer auto on a CPU-only machine: pixman, and the log says why.
TEST(Renderer, AutoLeavesACpuDeviceToPixman) {
  const auto env = lavapipe_only();
  ASSERT_FALSE(env.empty()) << "lavapipe is not installed (tools/deps.sh installs it)";
  BatonRun r = baton("renderer-auto-cpu",
                     {"--backend", "headless", "--exit-with-session", "--startup", "true"},
                     milliseconds(10000), env);
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("renderer: pixman (auto: on a CPU, pixman composites faster than Vulkan"),
            std::string::npos)
      << r.log;
  EXPECT_NE(r.log.find("every usable Vulkan device is a CPU; devices seen:"), std::string::npos)
      << r.log;
  EXPECT_NE(r.log.find("] llvmpipe"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("backend headless, renderer pixman)"), std::string::npos) << r.log;
}

// --renderer vulkan still renders on lavapipe.
TEST(Renderer, VulkanStillRendersOnACpuDevice) {
  const auto env = lavapipe_only();
  ASSERT_FALSE(env.empty()) << "lavapipe is not installed (tools/deps.sh installs it)";
  BatonRun r = baton(
      "renderer-vulkan-cpu",
      {"--backend", "headless", "--renderer", "vulkan", "--exit-with-session", "--startup", "true"},
      milliseconds(20000), env);
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("renderer: vulkan on 'llvmpipe"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("(CPU), as asked"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("backend headless, renderer vulkan)"), std::string::npos) << r.log;
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
  EXPECT_EQ(read_file(dir + "/env.txt"), "baton-env-test baton:wlroots\n");
}

// Clients make baton hold fds (a client's queued commits alone may hold 1024:
// HoldBudget), so baton takes its hard fd limit; its children get the soft
// limit it started with.
TEST(Lifecycle, BatonRaisesItsFdLimitAndItsChildrenGetTheOneItStartedWith) {
  rlimit mine{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
  if (mine.rlim_max <= 1024)
    GTEST_SKIP() << "UNTESTED HERE: the hard fd limit is " << mine.rlim_max
                 << "; raise it (ulimit -Hn) above 1024 to run this";
  const rlimit low = {1024, mine.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);  // baton inherits it
  std::string dir = scratch_dir("fd-limit");
  // The startup command's parent is baton.
  BatonRun r = baton("fd-limit-run",
                     {"--backend", "headless", "--exit-with-session", "-s",
                      "ulimit -n > " + dir + "/limit.txt; awk '/^Max open files/ {print $4}' " +
                          "/proc/$PPID/limits > " + dir + "/baton.txt"});
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &mine), 0);
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_EQ(read_file(dir + "/baton.txt"), std::to_string(mine.rlim_max) + "\n")
      << "baton's own soft limit";
  EXPECT_EQ(read_file(dir + "/limit.txt"), "1024\n") << "its child's soft limit";
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

// --session (baton.desktop): the log goes to $XDG_STATE_HOME/baton/log too,
// and the previous run's is kept for the user who comes back after a crash.
TEST(SessionLog, EachRunLogsToTheStateFolderAndKeepsThePreviousRun) {
  std::string state = scratch_dir("session-log-state");
  const std::map<std::string, std::string> env = {{"XDG_STATE_HOME", state}};
  BatonRun first = baton("session-log-1",
                         {"--session", "--backend", "headless", "--socket", "baton-session-log-1",
                          "--exit-with-session", "-s", "true"},
                         milliseconds(10000), env);
  ASSERT_EQ(first.status, 0) << first.log;
  const std::string log = read_file(state + "/baton/log");
  EXPECT_NE(log.find("running on WAYLAND_DISPLAY=baton-session-log-1"), std::string::npos) << log;
  EXPECT_NE(log.find("baton exits (status 0)"), std::string::npos) << log;
  BatonRun second = baton("session-log-2",
                          {"--session", "--backend", "headless", "--socket", "baton-session-log-2",
                           "--exit-with-session", "-s", "true"},
                          milliseconds(10000), env);
  ASSERT_EQ(second.status, 0) << second.log;
  EXPECT_NE(read_file(state + "/baton/log").find("baton-session-log-2"), std::string::npos);
  EXPECT_NE(read_file(state + "/baton/log.old").find("baton-session-log-1"), std::string::npos);
}

TEST(SessionLog, WithoutXdgStateHomeItIsUnderHome) {
  std::string home = scratch_dir("session-log-home");
  BatonRun r = baton("session-log-home-run",
                     {"--session", "--backend", "headless", "--exit-with-session", "-s", "true"},
                     milliseconds(10000), {{"XDG_STATE_HOME", ""}, {"HOME", home}});
  ASSERT_EQ(r.status, 0) << r.log;
  EXPECT_NE(read_file(home + "/.local/state/baton/log").find("running on WAYLAND_DISPLAY"),
            std::string::npos);
}

TEST(SessionLog, AFailedStartSaysWhyInTheLog) {
  std::string state = scratch_dir("session-log-failed");
  BatonRun r = baton("session-log-failed-run", {"--session", "--backend", "wayland"},
                     milliseconds(10000), {{"XDG_STATE_HOME", state}, {"WAYLAND_DISPLAY", ""}});
  EXPECT_EQ(r.status, 1);
  const std::string log = read_file(state + "/baton/log");
  EXPECT_NE(log.find("cannot start:"), std::string::npos) << log;
  EXPECT_NE(log.find("WAYLAND_DISPLAY is not set"), std::string::npos) << log;
}

TEST(SessionLog, ACrashIsReportedWithTheSignalAndABacktrace) {
  std::string dir = scratch_dir("session-log-crash");
  Process p({baton_exe(), "--session", "--backend", "headless", "--socket", "baton-crash-test"},
            {{"XDG_STATE_HOME", dir}}, dir + "/stderr.log");
  ASSERT_TRUE(wait_for_text(dir + "/baton/log", "running on WAYLAND_DISPLAY", milliseconds(10000)));
  // abort(): what a failed check or an unhandled exception ends in.
  p.signal(SIGABRT);
  EXPECT_EQ(p.wait(milliseconds(5000)), 128 + SIGABRT);
  for (const std::string& where : {dir + "/baton/log", dir + "/stderr.log"}) {
    const std::string text = read_file(where);
    EXPECT_NE(text.find("baton crashed: SIGABRT"), std::string::npos) << where << ":\n" << text;
    EXPECT_NE(text.find("backtrace"), std::string::npos) << where;
    EXPECT_NE(text.find("baton("), std::string::npos) << "no frame of baton in " << where;
  }
}

}  // namespace
}  // namespace baton::test
