#include "tests/support/process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tests/support/poll.hpp"

namespace baton::test {

namespace {

// Where the first report of AddressSanitizer, LeakSanitizer or UBSan begins
// in `text` (the start of its line), or npos.
size_t sanitizer_report(const std::string& text) {
  size_t first = std::string::npos;
  for (const char* marker :
       {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: "})
    first = std::min(first, text.find(marker));
  if (first == std::string::npos) return first;
  size_t line = text.rfind('\n', first);
  return line == std::string::npos ? 0 : line + 1;
}

}  // namespace

Process::Process(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env, const std::string& log_path)
    : program_(argv.empty() ? "" : argv[0]), log_path_(log_path) {
  int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("cannot open " + log_path);
  log_start_ = lseek(log, 0, SEEK_END);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);
    for (const auto& [key, value] : env) {
      if (value.empty())
        unsetenv(key.c_str());
      else
        setenv(key.c_str(), value.c_str(), 1);
    }
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid_, pid_);
  close(log);
}

Process::~Process() {
  if (reaped_) return;
  kill(pid_, SIGTERM);
  // Under the sanitizers the leak check at exit takes a moment.
  poll_until([this] { return exited(); }, std::chrono::seconds(10), std::chrono::milliseconds(20));
  // Its group (children it started) goes too; the unreaped leader keeps the
  // group id from being reused meanwhile.
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  reap();
}

bool Process::exited() {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid_;
}

void Process::reap() {
  int status = 0;
  waitpid(pid_, &status, 0);
  reaped_ = true;
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream log(log_path_);
  log.seekg(log_start_);
  std::stringstream read;
  read << log.rdbuf();
  const std::string output = read.str();
  if (size_t report = sanitizer_report(output); report != std::string::npos)
    ADD_FAILURE() << program_ << " (exit status " << status_ << ") reported under a sanitizer ("
                  << log_path_ << "):\n"
                  << output.substr(report, 30000);
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  if (reaped_) return status_;
  if (!poll_until([this] { return exited(); }, timeout, std::chrono::milliseconds(20)))
    return std::nullopt;
  reap();
  return status_;
}

void Process::signal(int sig) { kill(pid_, sig); }

std::string baton_exe() {
  const char* exe = std::getenv("BATON_EXE");
  if (exe == nullptr) throw std::runtime_error("BATON_EXE is not set (run through meson test)");
  return exe;
}

std::optional<int> run_baton(const std::vector<std::string>& args, const std::string& log_path,
                             std::chrono::milliseconds timeout,
                             const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{baton_exe()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process baton(argv, env, log_path);
  return baton.wait(timeout);
}

std::optional<int> run_baton_until_shown(const std::vector<std::string>& args,
                                         const std::string& png,
                                         const std::function<bool(const Image&)>& shown,
                                         const std::string& log_path,
                                         std::chrono::milliseconds limit,
                                         const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{baton_exe()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process baton(argv, env, log_path);
  std::filesystem::file_time_type judged{};
  poll_until(
      [&] {
        std::error_code error;
        const auto written = std::filesystem::last_write_time(png, error);
        if (error || written == judged) return false;
        judged = written;  // each screenshot is judged once
        auto image = read_png(png);
        if (image && shown(*image)) return true;
        baton.signal(SIGUSR1);  // another, a little later
        return false;
      },
      limit, std::chrono::milliseconds(250));
  baton.signal(SIGTERM);
  return baton.wait(std::chrono::milliseconds(10000));
}

std::string scratch_dir(const std::string& name) {
  auto dir = std::filesystem::path(BATON_BUILD_DIR) / "scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool wait_for_text(const std::string& path, const std::string& needle,
                   std::chrono::milliseconds timeout) {
  return poll_until([&] { return read_file(path).find(needle) != std::string::npos; }, timeout,
                    std::chrono::milliseconds(50));
}

Image load_png_or_fail(const std::string& path) {
  auto image = read_png(path);
  if (!image) throw std::runtime_error(image.error().describe());
  return std::move(*image);
}

namespace {
template <typename F>
void for_each_pixel(const Image& image, Box box, F f) {
  int x1 = box.x1 < 0 ? image.width : std::min(box.x1, image.width);
  int y1 = box.y1 < 0 ? image.height : std::min(box.y1, image.height);
  for (int y = std::max(0, box.y0); y < y1; ++y)
    for (int x = std::max(0, box.x0); x < x1; ++x) f(x, y, image.at(x, y));
}
}  // namespace

long count_pixels(const Image& image, uint32_t argb, Box box) {
  long n = 0;
  for_each_pixel(image, box, [&](int, int, uint32_t p) { n += p == argb; });
  return n;
}

long count_other_pixels(const Image& image, uint32_t argb, Box box) {
  long n = 0;
  for_each_pixel(image, box, [&](int, int, uint32_t p) { n += p != argb; });
  return n;
}

Box bounding_box(const Image& image, uint32_t argb) {
  Box b{image.width, image.height, -1, -1};
  for_each_pixel(image, {}, [&](int x, int y, uint32_t p) {
    if (p != argb) return;
    b.x0 = std::min(b.x0, x);
    b.y0 = std::min(b.y0, y);
    b.x1 = std::max(b.x1, x + 1);
    b.y1 = std::max(b.y1, y + 1);
  });
  return b;
}

long distinct_colours(const Image& image, Box box) {
  std::set<uint32_t> seen;
  for_each_pixel(image, box, [&](int, int, uint32_t p) { seen.insert(p); });
  return static_cast<long>(seen.size());
}

bool shows_nested_output_with_client(const Image& shot, uint32_t nested_background,
                                     uint32_t parent_background) {
  const Box nested = bounding_box(shot, nested_background);
  const Box client{960 - 125, 540 - 125, 960 + 125, 540 + 125};
  return nested.x0 == 320 && nested.y0 == 180 && nested.x1 == 1600 && nested.y1 == 900 &&
         count_pixels(shot, nested_background, client) == 0 &&
         distinct_colours(shot, client) > 100 && shot.at(10, 10) == parent_background;
}

void expect_nested_output_with_client(const Image& shot, uint32_t nested_background,
                                      uint32_t parent_background) {
  Box nested = bounding_box(shot, nested_background);
  EXPECT_EQ(nested.x0, 320);
  EXPECT_EQ(nested.y0, 180);
  EXPECT_EQ(nested.x1, 1600);
  EXPECT_EQ(nested.y1, 900);
  Box client{960 - 125, 540 - 125, 960 + 125, 540 + 125};
  EXPECT_EQ(count_pixels(shot, nested_background, client), 0)
      << "no client inside the nested output";
  EXPECT_GT(distinct_colours(shot, client), 100) << "the client's pattern is missing";
  EXPECT_EQ(shot.at(10, 10), parent_background);
}

}  // namespace baton::test
