// Draws a `baton --trace` file as a PNG timeline: one row per track (each
// output, each client surface), spans as bars, instants as ticks with their
// names. `--frame N` zooms onto the N-th committed frame of the first
// output: from its compose to the out-fence that says it is on screen.
//
// usage: baton-trace-png TRACE.json OUT.png [--frame N | --from MS --to MS]
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace {

struct Event {
  std::string name;
  char phase = 'i';
  int track = 0;
  double ts_ms = 0;   // from the first event
  double dur_ms = 0;  // spans
  std::string args;
};

struct TraceFile {
  std::map<int, std::string> tracks;
  std::vector<Event> events;
};

std::optional<std::string> field(const std::string& line, const char* key) {
  // Our own writer's layout: "key":value, value a number or a JSON string.
  const std::regex re(std::string("\"") + key + "\":(\"((?:[^\"\\\\]|\\\\.)*)\"|[-0-9.]+)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return std::nullopt;
  return m[2].matched ? m[2].str() : m[1].str();
}

bool load(const char* path, TraceFile& trace) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  double first = -1;
  while (std::getline(in, line)) {
    auto name = field(line, "name");
    auto ph = field(line, "ph");
    auto tid = field(line, "tid");
    if (!name || !ph || !tid) continue;
    if (*ph == "M") {
      const size_t args = line.find("\"args\"");
      if (auto track = field(line.substr(args == std::string::npos ? 0 : args), "name"))
        trace.tracks[std::atoi(tid->c_str())] = *track;
      continue;
    }
    auto ts = field(line, "ts");
    if (!ts || *name == "end") continue;
    Event e;
    e.name = *name;
    e.phase = (*ph)[0];
    e.track = std::atoi(tid->c_str());
    const double us = std::atof(ts->c_str());
    if (first < 0 || us < first) first = us;
    e.ts_ms = us;
    if (auto dur = field(line, "dur")) e.dur_ms = std::atof(dur->c_str()) / 1000.0;
    const size_t args = line.find("\"args\":{");
    if (args != std::string::npos) e.args = line.substr(args + 8, line.rfind('}') - args - 9);
    trace.events.push_back(std::move(e));
  }
  for (Event& e : trace.events) e.ts_ms = (e.ts_ms - first) / 1000.0;
  return !trace.events.empty();
}

// The window around frame `n` of the first output track.
bool frame_window(const TraceFile& trace, int n, double& from, double& to) {
  int output = 0;
  for (const auto& [id, name] : trace.tracks)
    if (name.rfind("output ", 0) == 0) {
      output = id;
      break;
    }
  const std::string tag = "\"frame\":" + std::to_string(n) + ",";
  const Event* commit = nullptr;
  for (const Event& e : trace.events)
    if (e.track == output && e.name == "output commit" && e.args.find(tag) != std::string::npos)
      commit = &e;
  if (commit == nullptr) return false;
  from = commit->ts_ms;
  to = commit->ts_ms;
  // Back to the compose that built it, on to its out-fence or flip.
  double compose = -1;
  for (const Event& e : trace.events)
    if (e.track == output && e.name == "compose and submit" && e.ts_ms <= commit->ts_ms)
      compose = std::max(compose, e.ts_ms);
  if (compose >= 0) from = compose;
  // The client buffers it shows: spans that ended while it was composed.
  for (const Event& e : trace.events)
    if (e.phase == 'X' && e.track != output && e.ts_ms + e.dur_ms <= from &&
        e.ts_ms + e.dur_ms > from - 50)
      from = std::min(from, e.ts_ms);
  // To the first flip after it, and on to its out-fence where there is one.
  const std::string on_screen = "(frame " + std::to_string(n) + " on screen)";
  for (const Event& e : trace.events)
    if (e.track == output && e.name == "flip" && e.ts_ms >= commit->ts_ms) {
      to = e.ts_ms;
      break;
    }
  for (const Event& e : trace.events)
    if (e.name.find(on_screen) != std::string::npos) to = std::max(to, e.ts_ms);
  const double pad = std::max(1.0, (to - from) * 0.15);
  from -= pad;
  to += pad;
  return true;
}

int draw(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TRACE.json OUT.png [--frame N | --from MS --to MS]\n", argv[0]);
    return 2;
  }
  TraceFile trace;
  if (!load(argv[1], trace)) {
    std::fprintf(stderr, "baton-trace-png: %s: no trace events\n", argv[1]);
    return 1;
  }
  double from = 0, to = 0;
  for (const Event& e : trace.events) to = std::max(to, e.ts_ms + e.dur_ms);
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--frame") {
      if (!frame_window(trace, std::atoi(argv[i + 1]), from, to)) {
        std::fprintf(stderr, "baton-trace-png: no frame %s on an output track\n", argv[i + 1]);
        return 1;
      }
    } else if (opt == "--from") {
      from = std::atof(argv[i + 1]);
    } else if (opt == "--to") {
      to = std::atof(argv[i + 1]);
    }
  }
  if (to <= from) to = from + 1;

  const int label_w = 230, row_h = 70, top = 40, width = 1600;
  const int height = top + row_h * static_cast<int>(std::max<size_t>(trace.tracks.size(), 1)) + 30;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  const double scale = (width - label_w - 20) / (to - from);
  auto x_of = [&](double ms) { return label_w + (ms - from) * scale; };

  // Time axis: about ten ticks at a round step.
  const double decade = std::pow(10.0, std::floor(std::log10((to - from) / 10.0)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if ((to - from) / (decade * m) <= 12) {
      step = decade * m;
      break;
    }
  cairo_set_font_size(cr, 11);
  for (double t = std::ceil(from / step) * step; t <= to; t += step) {
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, x_of(t), top - 5);
    cairo_line_to(cr, x_of(t), height - 25);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    char label[32];
    std::snprintf(label, sizeof(label), step < 1 ? "%.2f ms" : "%.0f ms", t);
    cairo_move_to(cr, x_of(t) + 2, top - 10);
    cairo_show_text(cr, label);
  }

  std::map<int, int> row_of;
  int row = 0;
  for (const auto& [id, name] : trace.tracks) {
    row_of[id] = row;
    const double y = top + row * row_h;
    cairo_set_source_rgb(cr, row % 2 ? 0.97 : 0.93, row % 2 ? 0.97 : 0.93, row % 2 ? 0.97 : 0.95);
    cairo_rectangle(cr, 0, y, width, row_h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 13);
    cairo_move_to(cr, 8, y + row_h / 2.0 + 4);
    cairo_show_text(cr, name.c_str());
    ++row;
  }
  cairo_set_font_size(cr, 10);
  int staggered = 0;
  for (const Event& e : trace.events) {
    auto r = row_of.find(e.track);
    if (r == row_of.end() || e.ts_ms + e.dur_ms < from || e.ts_ms > to) continue;
    const double y = top + r->second * row_h;
    if (e.phase == 'X') {
      const double x = std::max<double>(x_of(e.ts_ms), label_w);
      const double w = std::max(1.0, x_of(e.ts_ms + e.dur_ms) - x);
      const bool held = e.name.find("held") != std::string::npos;
      // A frame that missed the vblank it was planned for stands out in red.
      const bool missed = e.name.find("MISSED") != std::string::npos;
      if (missed)
        cairo_set_source_rgb(cr, 0.9, 0.1, 0.1);
      else
        cairo_set_source_rgb(cr, held ? 0.95 : 0.35, held ? 0.6 : 0.55, held ? 0.25 : 0.85);
      cairo_rectangle(cr, x, y + 8, w, 18);
      cairo_fill(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      cairo_move_to(cr, x + 2, y + 21);
      cairo_show_text(cr, e.name.c_str());
    } else {
      const double x = x_of(e.ts_ms);
      const bool fence =
          e.name.find("fence") != std::string::npos || e.name.find("done") != std::string::npos;
      cairo_set_source_rgb(cr, fence ? 0.1 : 0.75, fence ? 0.6 : 0.1, fence ? 0.2 : 0.1);
      cairo_move_to(cr, x, y + 28);
      cairo_line_to(cr, x, y + row_h - 4);
      cairo_set_line_width(cr, 2);
      cairo_stroke(cr);
      // Names alternate between two lines so neighbours do not overwrite.
      cairo_move_to(cr, x + 3, y + 42 + 12 * (staggered++ % 2));
      cairo_show_text(cr, e.name.c_str());
    }
  }
  cairo_surface_flush(surface);
  const cairo_status_t status = cairo_surface_write_to_png(surface, argv[2]);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    std::fprintf(stderr, "baton-trace-png: %s: %s\n", argv[2], cairo_status_to_string(status));
    return 1;
  }
  std::printf("baton-trace-png: %zu events, %.3f..%.3f ms -> %s\n", trace.events.size(), from, to,
              argv[2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return draw(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baton-trace-png: %s\n", e.what());
    return 1;
  }
}
