// reformat(): a module's text with its DWARF sections' blocks rewritten in
// place from images, the rest of the text kept as it was.
#include "ptxdwarf/write/ptx_writer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../work.h"
#include "ptx_writer_internal.h"

namespace ptxdwarf::write {

using namespace ptx_text;

namespace {

// What reformat() replaces: the module's blocks in text order, each with the
// image it becomes (none: removed), and the images no block of the module
// names (appended after its last block).
struct ReformatPlan {
  struct Edit {
    TextRange range;
    const SectionImage* image = nullptr;  // null: remove the block
  };
  WriteOptions options;
  std::vector<Edit> edits;
  std::vector<bool> placed;  // per image: it replaces a block
  uint64_t lastEnd = 0;      // the end of the text's last block
  bool anyBlock = false;
};

// Every check reformat() makes, before any text is made: a plan, or nullopt
// with the errors in diags.
std::optional<ReformatPlan> planReformat(std::string_view text, const ptx::Module& module,
                                         std::span<const SectionImage> sections, const WriteOptions& options,
                                         Diagnostics& diags) {
  ReformatPlan plan;
  WriteOptions& opt = plan.options;
  opt = options;
  if (!opt.version.present) opt.version = module.version;
  opt.crlf = options.crlf || firstLineEndsInCrlf(text);
  if (!validate(sections, opt, diags)) return std::nullopt;

  // The replacement images by name: each block of the module finds its own
  // without comparing its name with every image's.
  std::map<std::string_view, size_t, work::CountingLess<work::sectionLookup>> byName;
  for (size_t i = 0; i < sections.size(); ++i)
    if (!byName.try_emplace(sections[i].name, i).second) {
      writeError(diags, sections[i].loc, sections[i].name, "two replacement images named " + sections[i].name);
      return std::nullopt;
    }
  plan.placed.assign(sections.size(), false);
  for (const SectionImage& original : module.sections) {
    for (const TextRange& b : original.blocks) {
      if (b.begin > b.end || b.end > text.size()) {
        writeError(diags, original.loc, original.name,
                   "block of section " + original.name + " lies outside the text: was the module read from this text?");
        return std::nullopt;
      }
      plan.lastEnd = std::max(plan.lastEnd, b.end);
      plan.anyBlock = true;
    }
    const auto found = byName.find(original.name);
    if (found == byName.end() || original.blocks.empty()) continue;
    const size_t idx = found->second;
    plan.placed[idx] = true;
    for (size_t k = 0; k < original.blocks.size(); ++k)
      plan.edits.push_back({original.blocks[k], k == 0 ? &sections[idx] : nullptr});
  }
  std::sort(plan.edits.begin(), plan.edits.end(),
            [](const ReformatPlan::Edit& a, const ReformatPlan::Edit& b) { return a.range.begin < b.range.begin; });
  for (size_t i = 1; i < plan.edits.size(); ++i)
    if (plan.edits[i].range.begin < plan.edits[i - 1].range.end) {
      diags.error({}, "overlapping section blocks in the module").rule = "ptx-write";
      return std::nullopt;
    }
  return plan;
}

// Makes the text a plan describes, in order, into `out`.
void emitReformat(const ReformatPlan& plan, std::string_view text, std::span<const SectionImage> sections,
                  SinkOutput& out) {
  const std::string_view nl = plan.options.crlf ? "\r\n" : "\n";
  uint64_t pos = 0;
  auto copyTo = [&](uint64_t end) {
    out.text(text.substr(pos, end - pos));
    pos = end;
  };
  for (const ReformatPlan::Edit& e : plan.edits) {  // every one ends at or before the last block's end
    copyTo(e.range.begin);
    if (e.image) out.section(*e.image, false);
    pos = e.range.end;
  }
  // The images no block names: after the text's last block, each on a line
  // of its own; in a text that has none, at its end, each ending its line.
  const bool anyNew = std::find(plan.placed.begin(), plan.placed.end(), false) != plan.placed.end();
  copyTo(plan.anyBlock ? plan.lastEnd : text.size());
  if (anyNew && !plan.anyBlock && !out.endsLine()) out.text(nl);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (plan.placed[i]) continue;
    out.text(nl);
    out.section(sections[i], true);
    if (!plan.anyBlock) out.text(nl);
  }
  copyTo(text.size());
}

}  // namespace

std::optional<std::string> reformat(std::string_view text, const ptx::Module& module,
                                    std::span<const SectionImage> sections, const WriteOptions& options,
                                    Diagnostics& diags) {
  std::string out;
  size_t need = text.size();
  for (const SectionImage& s : sections) need += estimateSize(s, options.style);
  out.reserve(need);
  if (!reformat(text, module, sections, options, diags, [&](std::string_view piece) { out += piece; }))
    return std::nullopt;
  return out;
}

bool reformat(std::string_view text, const ptx::Module& module, std::span<const SectionImage> sections,
              const WriteOptions& options, Diagnostics& diags, const std::function<void(std::string_view)>& sink) {
  std::optional<ReformatPlan> plan = planReformat(text, module, sections, options, diags);
  if (!plan) return false;
  SinkOutput output(sink, plan->options);
  emitReformat(*plan, text, sections, output);
  output.finish();
  return true;
}

}  // namespace ptxdwarf::write
