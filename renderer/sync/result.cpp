#include "renderer/sync/result.hpp"

#include <cerrno>
#include <cstring>

namespace baton::sync {

std::string Error::describe() const {
  std::string text = call;
  text += ": ";
  text += std::strerror(code);
  if (const char* name = strerrorname_np(code); name != nullptr) {
    text += " (";
    text += name;
    text += ")";
  }
  return text;
}

Error last_error(const char* call) { return Error{call, errno}; }

}  // namespace baton::sync
