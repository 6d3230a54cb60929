// reformat() of a loaded file (ptxdwarf/write/reformat.h): which sections are
// written, the model the verbose comments come from, and where a refusal is
// reported.
#include "ptxdwarf/write/reformat.h"

#include <optional>
#include <vector>

#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/reencode.h"

namespace ptxdwarf::write {

namespace {

std::vector<SectionImage> debugSections(const ptx::Module& m) {
  std::vector<SectionImage> images;
  for (const SectionImage& s : m.sections)
    if (s.name.starts_with(".debug")) images.push_back(s);
  return images;
}

// Re-encoded sections have no PTX positions (the writer's refusals in them
// say 0:0): what the input's own sections hold too is reported where the
// input has it.
void locateAtInput(const Loaded& in, const WriteOptions& options, Diagnostics& diags) {
  WriteOptions located = options;
  located.version = in.read.module.version;
  Diagnostics atInput;
  if (!validate(debugSections(in.read.module), located, atInput) && atInput.hasErrors()) diags = std::move(atInput);
}

Reformatted run(const Loaded& in, const ReformatOptions& options, const std::function<void(std::string_view)>* sink) {
  Reformatted r;
  if (in.dwarf.diagnostics.hasErrors()) {
    r.diagnostics = in.dwarf.diagnostics;
    return r;
  }
  const ptx::Module& m = in.read.module;
  std::vector<SectionImage> images =
      options.reencode ? encodeCanonical(in.dwarf, r.diagnostics, options.threads) : debugSections(m);
  // Verbose comments need the model of exactly these bytes (other styles use no model).
  const bool annotate = options.reencode && options.style == Style::verbose;
  read::Dwarf annotated = annotate ? read::decode(images) : read::Dwarf{};
  const WriteOptions w{
      .style = options.style, .dwarf = options.reencode ? &annotated : &in.dwarf, .threads = options.threads};
  const std::string_view text = in.text.view();
  // A run of the input handed over whole (a view of the text, read back from
  // the file) is not read again once written: its pages may go again.
  auto handOver = [&](std::string_view piece) {
    (*sink)(piece);
    if (options.releaseText && piece.data() >= text.data() && piece.data() + piece.size() <= text.data() + text.size()) {
      const auto at = static_cast<uint64_t>(piece.data() - text.data());
      in.text.release(at, at + piece.size());
    }
  };
  if (!r.diagnostics.hasErrors()) {
    if (sink) {
      r.written = write::reformat(text, m, images, w, r.diagnostics, handOver);
    } else if (std::optional<std::string> out = write::reformat(text, m, images, w, r.diagnostics)) {
      r.ptx = std::move(*out);
      r.written = true;
    }
  }
  if (!r.written && options.reencode) locateAtInput(in, w, r.diagnostics);
  return r;
}

}  // namespace

Reformatted reformat(const Loaded& in, const ReformatOptions& options) { return run(in, options, nullptr); }

Reformatted reformat(const Loaded& in, const ReformatOptions& options,
                     const std::function<void(std::string_view)>& sink) {
  return run(in, options, &sink);
}

}  // namespace ptxdwarf::write
