// The C API of what a cubin holds beyond its DWARF (ptxdwarf/cubin/): its
// line table with inline stacks, `.nv_debug_line_sass`, the register map and
// the embedded PTX, decoded once into a ptxdwarf_cubin that owns every
// string it hands out.
#include <optional>

#include "capi.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

struct ptxdwarf_cubin {
  struct Row {
    cubin::LineRow row;
    const char* file = "";
    bool broken = false;
    uint32_t framesOmitted = 0;
  };
  std::deque<std::string> strings;  // every string handed out
  std::vector<Row> rows;
  std::vector<std::vector<ptxdwarf_inline_frame>> frames;  // per row, innermost first, as a listing shows them
  std::vector<ptxdwarf_sass_line> sassLines;
  std::vector<ptxdwarf_regmap_entry> regmap;
  std::string regmapProblem;
  std::optional<std::string> embeddedPtx;

  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }
};

namespace {

bool isCubin(const ptxdwarf_module& m) { return m.loaded.read.module.fileFormat != "ptx"; }

std::span<const uint8_t> bytesOf(const ptx::Module& m, std::string_view name) {
  const SectionImage* s = cubin::sectionOrSuffixed(m, name);
  return s ? std::span<const uint8_t>(s->bytes) : std::span<const uint8_t>();
}

// Every table's rows with their file paths and inline stacks.
void addLineRows(ptxdwarf_cubin& c, const ptx::Module& m) {
  const std::span<const uint8_t> debugStr = bytesOf(m, ".debug_str");
  for (const cubin::LineTable& table : cubin::decodeLinePrograms(bytesOf(m, ".debug_line"))) {
    for (size_t i = 0; i < table.rows.size(); ++i) {
      const cubin::LineRow& r = table.rows[i];
      const cubin::ShownInlineStack stack = cubin::shownInlineStack(table, i, debugStr);
      std::vector<ptxdwarf_inline_frame> frames;
      for (const cubin::InlineFrame& f : stack.frames)
        frames.push_back({c.keep(std::string(f.function)), c.keep(table.header.filePath(f.callFile)), f.callLine,
                          f.callColumn});
      c.rows.push_back({r, c.keep(table.header.filePath(r.file)), stack.broken, stack.omitted});
      c.frames.push_back(std::move(frames));
    }
  }
}

void addSassLines(ptxdwarf_cubin& c, const ptx::Module& m) {
  for (const cubin::LineTable& table : cubin::decodeLinePrograms(bytesOf(m, ".nv_debug_line_sass")))
    for (const cubin::LineRow& r : table.rows) c.sassLines.push_back({r.address, r.line, r.endSequence ? 1 : 0});
}

void addRegMap(ptxdwarf_cubin& c, const ptx::Module& m) {
  const cubin::RegMap map = cubin::decodeRegMap(bytesOf(m, ".nv_debug_info_reg_sass"));
  c.regmapProblem = map.problem;
  for (const cubin::RegMapFunction& f : map.functions) {
    const char* function = c.keep(std::string(f.name));
    for (const cubin::RegMapEntry& e : f.entries)
      c.regmap.push_back({function, c.keep(std::string(e.reg)), e.piece, e.location,
                          c.keep(std::string(cubin::className(e.classCode()))), c.keep(cubin::sassLocation(e.location)),
                          e.start, e.end});
  }
}

const ptxdwarf_cubin& cubinOf(const ptxdwarf_cubin* c) { return need(c, "the cubin"); }

}  // namespace

int ptxdwarf_module_is_cubin(const ptxdwarf_module* module) { return module && isCubin(*module) ? 1 : 0; }

ptxdwarf_status ptxdwarf_cubin_open(const ptxdwarf_module* module, ptxdwarf_cubin** out) {
  return guard([&] {
    const ptxdwarf_module& m = need(module, "the module");
    needOut(out, "out");
    if (!isCubin(m)) fail(PTXDWARF_E_INVALID_ARGUMENT, m.loaded.path + ": not a cubin (the module was read from PTX)");
    auto c = std::make_unique<ptxdwarf_cubin>();
    const ptx::Module& cubinModule = m.loaded.read.module;
    addLineRows(*c, cubinModule);
    addSassLines(*c, cubinModule);
    addRegMap(*c, cubinModule);
    c->embeddedPtx = cubin::embeddedPtx(cubinModule);
    *out = c.release();
  });
}

void ptxdwarf_cubin_free(ptxdwarf_cubin* cubin) { delete cubin; }

size_t ptxdwarf_cubin_line_count(const ptxdwarf_cubin* cubin) { return cubin ? cubin->rows.size() : 0; }

ptxdwarf_status ptxdwarf_cubin_line(const ptxdwarf_cubin* cubin, size_t row, ptxdwarf_line_row* out) {
  return guard([&] {
    const ptxdwarf_cubin& c = cubinOf(cubin);
    const ptxdwarf_cubin::Row& r = itemAt(c.rows, row, "row");
    needOut(out, "out");
    *out = {r.row.address, r.file, r.row.line, r.row.column, r.row.isStmt ? 1 : 0, r.row.endSequence ? 1 : 0,
            c.frames[row].size(), r.broken ? 1 : 0, r.framesOmitted};
  });
}

ptxdwarf_status ptxdwarf_cubin_inline_frame(const ptxdwarf_cubin* cubin, size_t row, size_t depth,
                                            ptxdwarf_inline_frame* out) {
  return guard([&] {
    const ptxdwarf_cubin& c = cubinOf(cubin);
    itemAt(c.rows, row, "row");
    const ptxdwarf_inline_frame& f = itemAt(c.frames[row], depth, "inline frame");
    needOut(out, "out");
    *out = f;
  });
}

size_t ptxdwarf_cubin_sass_line_count(const ptxdwarf_cubin* cubin) { return cubin ? cubin->sassLines.size() : 0; }

ptxdwarf_status ptxdwarf_cubin_sass_line(const ptxdwarf_cubin* cubin, size_t row, ptxdwarf_sass_line* out) {
  return guard([&] {
    const ptxdwarf_sass_line& r = itemAt(cubinOf(cubin).sassLines, row, "row");
    needOut(out, "out");
    *out = r;
  });
}

size_t ptxdwarf_cubin_regmap_count(const ptxdwarf_cubin* cubin) { return cubin ? cubin->regmap.size() : 0; }

ptxdwarf_status ptxdwarf_cubin_regmap_entry(const ptxdwarf_cubin* cubin, size_t index, ptxdwarf_regmap_entry* out) {
  return guard([&] {
    const ptxdwarf_regmap_entry& e = itemAt(cubinOf(cubin).regmap, index, "entry");
    needOut(out, "out");
    *out = e;
  });
}

const char* ptxdwarf_cubin_regmap_problem(const ptxdwarf_cubin* cubin) {
  return cubin ? cubin->regmapProblem.c_str() : "";
}

ptxdwarf_status ptxdwarf_cubin_embedded_ptx(const ptxdwarf_cubin* cubin, const char** text, size_t* length) {
  return guard([&] {
    const ptxdwarf_cubin& c = cubinOf(cubin);
    needOut(text, "text");
    needOut(length, "length");
    if (!c.embeddedPtx) fail(PTXDWARF_E_NOT_FOUND, "the cubin has no embedded PTX (.nv_debug_ptx_txt)");
    *text = c.embeddedPtx->c_str();
    *length = c.embeddedPtx->size();
  });
}
