#include "compositor/output/outputs.hpp"

#include <algorithm>

#include "compositor/output/output.hpp"
#include "util/wlr.hpp"

namespace baton {

Outputs::Outputs(wlr_output_layout* layout) : layout_(layout) {
  layout_change_.connect(&layout->events.change, [this](void*) { layout_changed.emit(); });
}

Outputs::~Outputs() = default;

std::vector<Output*> Outputs::all() const {
  std::vector<Output*> result;
  result.reserve(outputs_.size());
  for (const auto& output : outputs_) result.push_back(output.get());
  return result;
}

Output* Outputs::at(double lx, double ly) const {
  if (Output* output = find(wlr_output_layout_output_at(layout_, lx, ly))) return output;
  return outputs_.empty() ? nullptr : outputs_.front().get();
}

Output* Outputs::find(const wlr_output* output) const {
  for (const auto& o : outputs_)
    if (o->wlr() == output) return o.get();
  return nullptr;
}

void Outputs::add(std::unique_ptr<Output> output) {
  outputs_.push_back(std::move(output));
  added.emit(*outputs_.back());
  layout_changed.emit();
}

void Outputs::remove(Output& output) {
  removed.emit(output);
  std::erase_if(outputs_, [&](const auto& o) { return o.get() == &output; });
  layout_changed.emit();
}

}  // namespace baton
