#include "util/trace.hpp"

#include <ctime>

namespace baton {

Result<std::unique_ptr<Trace>> Trace::open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (file == nullptr) return last_error("--trace " + path);
  // Whole lines reach the file in large writes; the closing bracket is
  // optional in this format, so an unfinished trace still loads.
  std::setvbuf(file, nullptr, _IOFBF, 1 << 16);
  std::fputs("[\n", file);
  return std::unique_ptr<Trace>(new Trace(file));
}

Trace::~Trace() {
  std::fputs("{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":", file_);
  std::fprintf(file_, "%.3f}\n]\n", static_cast<double>(now()) / 1000.0);
  std::fclose(file_);
}

int Trace::track(std::string_view name) {
  const int id = ++tracks_;
  std::fprintf(file_,
               "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
               "\"args\":{\"name\":%s}},\n",
               id, quote(name).c_str());
  return id;
}

void Trace::instant(int track, std::string_view name, int64_t ns, std::string_view args) {
  event('i', track, name, ns, 0, args);
}

void Trace::span(int track, std::string_view name, int64_t begin_ns, int64_t end_ns,
                 std::string_view args) {
  event('X', track, name, begin_ns, end_ns > begin_ns ? end_ns - begin_ns : 0, args);
}

void Trace::event(char phase, int track, std::string_view name, int64_t ns, int64_t dur_ns,
                  std::string_view args) {
  // Microseconds with nanosecond decimals, as the format wants.
  std::fprintf(file_, "{\"name\":%s,\"ph\":\"%c\",\"pid\":1,\"tid\":%d,\"ts\":%.3f",
               quote(name).c_str(), phase, track, static_cast<double>(ns) / 1000.0);
  if (phase == 'X') std::fprintf(file_, ",\"dur\":%.3f", static_cast<double>(dur_ns) / 1000.0);
  if (phase == 'i') std::fputs(",\"s\":\"t\"", file_);
  if (!args.empty())
    std::fprintf(file_, ",\"args\":{%.*s}", static_cast<int>(args.size()), args.data());
  std::fputs("},\n", file_);
}

int64_t Trace::now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::string Trace::quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace baton
