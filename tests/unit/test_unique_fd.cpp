#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "util/unique_fd.hpp"

namespace {

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFd, ClosesOnDestruction) {
  int raw = -1;
  {
    baton::UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    raw = fd.get();
    ASSERT_TRUE(fd.valid());
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));
}

TEST(UniqueFd, MoveTransfersOwnership) {
  baton::UniqueFd a(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.get();
  baton::UniqueFd b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(b.get(), raw);
  baton::UniqueFd c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_TRUE(is_open(raw));
}

TEST(UniqueFd, MoveAssignClosesThePreviousFd) {
  baton::UniqueFd a(open("/dev/null", O_RDONLY | O_CLOEXEC));
  baton::UniqueFd b(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int old = a.get();
  a = std::move(b);
  EXPECT_FALSE(is_open(old));
  EXPECT_TRUE(a.valid());
}

TEST(UniqueFd, ReleaseGivesUpOwnership) {
  baton::UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = fd.release();
  EXPECT_FALSE(fd.valid());
  EXPECT_TRUE(is_open(raw));
  close(raw);
}

TEST(UniqueFd, DuplicateIsIndependent) {
  baton::UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto duplicated = fd.duplicate();
  ASSERT_TRUE(duplicated.ok());
  baton::UniqueFd copy = std::move(*duplicated);
  ASSERT_TRUE(copy.valid());
  EXPECT_NE(copy.get(), fd.get());
  int raw = fd.get();
  fd.reset();
  EXPECT_FALSE(is_open(raw));
  EXPECT_TRUE(is_open(copy.get()));
  auto of_nothing = baton::UniqueFd().duplicate();
  ASSERT_FALSE(of_nothing.ok());
  EXPECT_EQ(of_nothing.error().code, EBADF);
  EXPECT_EQ(of_nothing.error().describe(), "fcntl(F_DUPFD_CLOEXEC): Bad file descriptor (EBADF)");
}

TEST(UniqueFd, ReadableNow) {
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  baton::UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  EXPECT_FALSE(baton::readable_now(read_end.get()));
  ASSERT_EQ(write(write_end.get(), "x", 1), 1);
  EXPECT_TRUE(baton::readable_now(read_end.get()));
}

}  // namespace
