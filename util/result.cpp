#include "util/result.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace baton {

std::string Error::describe() const {
  std::string text = call;
  if (!text.empty()) text += ": ";
  if (code == 0) return text + reason;
  text += std::strerror(code);
  if (const char* name = strerrorname_np(code); name != nullptr) {
    text += " (";
    text += name;
    text += ")";
  }
  return text;
}

Error last_error(std::string_view call) {
  const int code = errno;  // before anything else can change it
  return Error{std::string(call), code, {}};
}

Error failure(std::string what, std::string reason) {
  return Error{std::move(what), 0, std::move(reason)};
}

}  // namespace baton
