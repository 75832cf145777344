// The renderer tests' udmabufs (tests/clients/udmabuf.hpp), with the reason
// a test skips or fails when there are none.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "tests/clients/udmabuf.hpp"

namespace baton::test {

/// At least `bytes`, mapped for the test to write; null, with `why`, where
/// /dev/udmabuf is missing or refuses.
std::unique_ptr<testing::Udmabuf> make_udmabuf(size_t bytes, std::string& why);

}  // namespace baton::test
