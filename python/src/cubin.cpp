// What a cubin holds beyond its DWARF, from Python (ptxdwarf/cubin/): its
// line table rows with their inline stacks, its register map (the keys of
// `ptxdump dump --debug-regmap --format json`), its SASS lines
// (`.nv_debug_line_sass`) and its embedded PTX. Methods of Module; on a
// module read from PTX they raise ValueError.
#include <optional>
#include <span>
#include <string>

#include "binding.h"
#include "library.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"

namespace ptxdwarf_python {

namespace cubin = ptxdwarf::cubin;
using LoadedPtr = std::shared_ptr<Loaded>;

namespace {


const ptxdwarf::ptx::Module& cubinModule(const Loaded& l, const char* method) {
  if (l.module().fileFormat == "ptx")
    throw py::value_error(std::string(method) + "(): " + l.name + " is not a cubin (it was read as PTX)");
  return l.module();
}

std::span<const uint8_t> bytesOf(const ptxdwarf::ptx::Module& m, std::string_view name) {
  const ptxdwarf::SectionImage* s = cubin::sectionOrSuffixed(m, name);
  return s ? std::span<const uint8_t>(s->bytes) : std::span<const uint8_t>();
}

py::list lineRows(const Loaded& l) {
  const ptxdwarf::ptx::Module& m = cubinModule(l, "line_rows");
  const std::span<const uint8_t> debugStr = bytesOf(m, ".debug_str");
  py::list rows;
  for (const cubin::LineTable& table : cubin::decodeLinePrograms(bytesOf(m, ".debug_line"))) {
    for (size_t i = 0; i < table.rows.size(); ++i) {
      const cubin::LineRow& r = table.rows[i];
      py::dict d;
      d["address"] = r.address;
      d["file"] = bytesText(table.header.filePath(r.file));
      d["line"] = r.line;
      d["column"] = r.column;
      d["is_stmt"] = r.isStmt;
      d["end_sequence"] = r.endSequence;
      // At most kInlineFramesShown frames, as ptxdump's rows: the rest counted.
      const cubin::ShownInlineStack stack = cubin::shownInlineStack(table, i, debugStr);
      py::list frames;
      for (const cubin::InlineFrame& f : stack.frames) {
        py::dict frame;
        frame["function"] = bytesText(f.function);
        frame["file"] = bytesText(table.header.filePath(f.callFile));
        frame["line"] = f.callLine;
        frame["column"] = f.callColumn;
        frames.append(frame);
      }
      d["inlined_at"] = frames;
      if (stack.omitted) d["inline_frames_omitted"] = stack.omitted;
      if (stack.broken) d["inline_broken"] = true;
      rows.append(d);
    }
  }
  return rows;
}

py::list sassLines(const Loaded& l) {
  py::list rows;
  for (const cubin::LineTable& table : cubin::decodeLinePrograms(bytesOf(cubinModule(l, "sass_lines"),
                                                                         ".nv_debug_line_sass")))
    for (const cubin::LineRow& r : table.rows) {
      py::dict d;
      d["address"] = r.address;
      d["ptx_line"] = r.line;
      d["end_sequence"] = r.endSequence;
      rows.append(d);
    }
  return rows;
}

py::list regmap(const Loaded& l) {
  const cubin::RegMap map = cubin::decodeRegMap(bytesOf(cubinModule(l, "regmap"), ".nv_debug_info_reg_sass"));
  if (!map.problem.empty()) throw InputError(l.name + ": error: register map: " + map.problem);
  py::list entries;
  for (const cubin::RegMapFunction& f : map.functions)
    for (const cubin::RegMapEntry& e : f.entries) {
      py::dict d;
      d["function"] = bytesText(f.name);
      d["register"] = bytesText(e.reg);
      d["piece"] = e.piece;
      d["loc"] = e.location;
      d["class"] = std::string(cubin::className(e.classCode()));
      d["sass"] = cubin::sassLocation(e.location);
      d["start"] = e.start;
      d["end"] = e.end;
      entries.append(d);
    }
  return entries;
}

}  // namespace

void bindCubin(py::class_<Loaded, std::shared_ptr<Loaded>>& module) {
  module
      .def_property_readonly("is_cubin", [](const LoadedPtr& l) { return l->module().fileFormat != "ptx"; },
                             "True when the module was read from a cubin (ptxas's ELF file)")
      .def("line_rows", [](const LoadedPtr& l) { return lineRows(*l); },
           "A cubin's .debug_line rows, every table's in order: dicts of address, file (its path), line, column, "
           "is_stmt, end_sequence and inlined_at (the inline stack, innermost first: function, file, line, "
           "column of each call; [] outside inlined code; at most 64 frames, as ptxdump prints them, and "
           "inline_frames_omitted: the count of the rest, where there are more)")
      .def("regmap", [](const LoadedPtr& l) { return regmap(*l); },
           "A cubin's register map (.nv_debug_info_reg_sass): dicts of function, register, piece, loc, class, "
           "sass, start, end, as `ptxdump dump --debug-regmap --format json`")
      .def("sass_lines", [](const LoadedPtr& l) { return sassLines(*l); },
           "A cubin's .nv_debug_line_sass rows: dicts of address, ptx_line (a line of embedded_ptx()), "
           "end_sequence")
      .def(
          "embedded_ptx",
          [](const LoadedPtr& l) -> py::object {
            std::optional<std::string> ptx = cubin::embeddedPtx(cubinModule(*l, "embedded_ptx"));
            return ptx ? py::object(bytesText(*ptx)) : py::object(py::none());
          },
          "The PTX ptxas embedded in a cubin (.nv_debug_ptx_txt), as `ptxdump extract --ptx`; None when none");
}

}  // namespace ptxdwarf_python
