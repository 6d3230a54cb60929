// Producing: the C++ Program (module text, `.file` table, `.loc` lines,
// labels) and Builder (the DIE tree) as Python objects, and annotate.
// DIEs are named by the Builder's ids (ints); a type or location left out is
// none. Misuse (a file id not in the table, a register name cuda-gdb cannot
// read) raises ptxdwarf.BuildError with the library's message.
#include <pybind11/stl.h>

#include "binding.h"
#include "library.h"
#include "ptxdwarf/check/assembled.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/program.h"

namespace ptxdwarf_python {

namespace write = ptxdwarf::write;
namespace ptx = ptxdwarf::ptx;
namespace dw = ptxdwarf::dw;

namespace {

// ---- the calls into the library's producing side ---------------------------

// With `check`, every check rule runs on the text written (check::assembleAndCheck).
write::Assembled assembleProgram(const write::Program& program, const std::vector<const write::Unit*>& units,
                                 const write::AssembleOptions& options, bool check, const std::string& filename) {
  const std::span<const write::Unit* const> list(units);
  if (!check) return program.assemble(list, options);
  return ptxdwarf::check::assembleAndCheck(program, list, {.assemble = options, .filename = filename});
}

write::Annotated annotateText(const std::string& text, const std::string& name,
                              const write::AnnotateOptions& options, std::string& error) {
  ptx::ReadResult r = ptx::read(text, name);
  if (!r.ok()) {
    for (const ptxdwarf::Diagnostic& d : r.diagnostics.items)
      if (d.severity == ptxdwarf::Severity::error) error += (error.empty() ? "" : "\n") + formatDiagnostic(d, name);
    return {};
  }
  return write::annotate(text, r.module, options);
}

// ---- conversions -------------------------------------------------------------

write::DieId dieOrNone(const std::optional<write::DieId>& id) { return id.value_or(write::kNoDie); }

std::optional<write::SymbolRef> symbolOrNone(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  return write::SymbolRef{*name};
}

write::Style styleNamed(const std::string& name) {
  if (auto s = write::parseStyle(name)) return *s;
  throw py::value_error("unknown style '" + name + "' (packed, one-per-line, verbose, dense)");
}

ptx::StateSpace spaceNamed(std::string name) {
  if (name.starts_with('.')) name.erase(0, 1);
  static const std::pair<const char*, ptx::StateSpace> spaces[] = {
      {"reg", ptx::StateSpace::reg},       {"sreg", ptx::StateSpace::sreg},     {"const", ptx::StateSpace::const_},
      {"global", ptx::StateSpace::global}, {"local", ptx::StateSpace::local},   {"param", ptx::StateSpace::param},
      {"shared", ptx::StateSpace::shared}, {"tex", ptx::StateSpace::tex},       {"surf", ptx::StateSpace::surf},
      {"sampler", ptx::StateSpace::sampler}, {"generic", ptx::StateSpace::generic}};
  for (const auto& [n, s] : spaces)
    if (name == n) return s;
  throw py::value_error("unknown state space '" + name + "' (global, shared, const, local, param, ...)");
}

ptx::Version versionNamed(const std::string& text) {
  unsigned major = 0, minor = 0;
  char dot = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%u%c%u%c", &major, &dot, &minor, &rest) != 3 || dot != '.')
    throw py::value_error("a PTX version is \"MAJOR.MINOR\" (\"7.5\"), not '" + text + "'");
  return ptx::Version{major, minor, true};
}

// An inline stack from Python: (function, file, line[, column]) tuples, outermost call first.
std::vector<write::InlinedCall> inlinedCalls(const py::iterable& frames) {
  std::vector<write::InlinedCall> out;
  for (const py::handle f : frames) {
    const auto t = py::reinterpret_borrow<py::tuple>(f);
    if (t.size() < 3 || t.size() > 4)
      throw py::value_error("an inlined call is (function, call_file, call_line[, call_column])");
    out.push_back({t[0].cast<std::string>(),
                   {t[1].cast<unsigned>(), t[2].cast<unsigned>(), t.size() == 4 ? t[3].cast<unsigned>() : 0u}});
  }
  return out;
}

struct PyBuilder {
  write::Builder builder;
};

write::VariableDesc variableDesc(std::string name, unsigned declFile, unsigned declLine,
                                 std::optional<write::DieId> type, const std::optional<write::Location>& location,
                                 bool external, std::string linkageName) {
  write::VariableDesc d;
  d.name = std::move(name);
  d.declFile = declFile;
  d.declLine = declLine;
  d.type = dieOrNone(type);
  if (location) d.location = *location;
  d.external = external;
  d.linkageName = std::move(linkageName);
  return d;
}

void bindLocation(py::module_& m) {
  py::class_<write::Location>(m, "Location", "Where a variable lives, in PTX terms (its address class follows).")
      .def_static("register", &write::Location::reg, py::arg("name"), py::arg("address_size") = 8,
                  "a PTX register (\"%r1\"): DW_OP_regx, ADDR_reg_space")
      .def_static(
          "symbol",
          [](const std::string& symbol, const std::string& space, int64_t addend, uint8_t addressSize) {
            return write::Location::symbol({symbol, addend}, spaceNamed(space), addressSize);
          },
          py::arg("symbol"), py::arg("space") = "global", py::arg("addend") = 0, py::arg("address_size") = 8,
          "a symbol in a state space (\"global\", \"shared\", \"param\", ...): DW_OP_addr and its class")
      .def_static("frame_offset", &write::Location::frameOffset, py::arg("offset"),
                  py::arg("address_class") = uint8_t{6}, "DW_OP_fbreg offset (in .local memory by default)")
      .def_static(
          "list",
          [](const std::vector<std::tuple<std::string, std::string, write::Location>>& ranges) {
            std::vector<write::LocationRange> out;
            for (const auto& [begin, end, location] : ranges) out.push_back({{begin}, {end}, location});
            return write::Location::list(out);
          },
          py::arg("ranges"), "a location list: (begin_label, end_label, location) ranges")
      .def_property_readonly("address_class", &write::Location::addressClass)
      .def_property_readonly("expression", [](const write::Location& l) {
        const auto& b = l.expr().bytes();
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      });
}

void bindProgram(py::module_& m) {
  py::class_<write::Program>(m, "Program",
                             "A PTX module being written: its code, `.file` table, `.loc` lines and labels.")
      .def(py::init([](const std::string& version, const std::string& target, unsigned addressSize,
                       bool flattenInlined, const std::string& labelPrefix) {
             write::ProgramOptions o;
             o.version = versionNamed(version);
             o.target = target;
             o.addressSize = addressSize;
             o.flattenInlined = flattenInlined;
             o.labelPrefix = labelPrefix;
             return std::make_unique<write::Program>(o);
           }),
           py::arg("version") = "7.5", py::arg("target") = "sm_80", py::arg("address_size") = 64,
           py::arg("flatten_inlined") = false, py::arg("label_prefix") = "$L__")
      .def(
          "add_file",
          [](write::Program& p, const std::string& path, std::optional<uint64_t> timestamp,
             std::optional<uint64_t> size) { return p.files().add(path, timestamp, size); },
          py::arg("path"), py::arg("timestamp") = py::none(), py::arg("size") = py::none(),
          "the file id of `path` (1, 2, ... in order of first use): what loc(), decl_file and call_file take")
      .def_property_readonly("files",
                             [](const write::Program& p) {
                               std::vector<std::string> out;
                               for (const auto& f : p.files().files()) out.push_back(f.path);
                               return out;
                             })
      .def(
          "code", [](write::Program& p, const std::string& text) { p.code() += text; }, py::arg("text"),
          "appends PTX text (everything after the header and the .file table)")
      .def_property_readonly("code_text", [](const write::Program& p) { return p.code(); })
      .def(
          "begin_function",
          [](write::Program& p) {
            write::Labels::Function f = p.beginFunction();
            return std::make_pair(f.begin, f.end);
          },
          "writes the function's begin label; returns (low_pc label, high_pc label)")
      .def("end_function", [](write::Program& p) { return p.endFunction(); })
      .def("label", &write::Program::label, "writes a fresh label here and returns its name")
      .def("new_label", [](write::Program& p) { return p.labels().temporary(); },
           "a fresh label name, not written yet (place it with place())")
      .def("place", &write::Program::place, py::arg("name"))
      .def(
          "loc",
          [](write::Program& p, unsigned file, unsigned line, unsigned column, const py::iterable& inlined) {
            const std::vector<write::InlinedCall> calls = inlinedCalls(inlined);
            return p.loc({file, line, column}, calls);
          },
          py::arg("file"), py::arg("line"), py::arg("column") = 0, py::arg("inlined") = py::tuple(),
          "the .loc line(s) for the next instruction; `inlined`: (function, call_file, call_line, call_column) "
          "tuples, outermost call first. Returns the number of lines written.")
      .def(
          "assemble",
          [](const write::Program& p, const py::object& units, bool check, const std::string& style,
             const std::string& filename) -> py::object {
            std::vector<const write::Unit*> list;
            if (py::isinstance<PyBuilder>(units)) {
              list.push_back(&units.cast<PyBuilder&>().builder.unit());
            } else if (!units.is_none()) {
              for (const py::handle u : units) list.push_back(&u.cast<PyBuilder&>().builder.unit());
            }
            write::AssembleOptions options;
            options.style = styleNamed(style);
            write::Assembled out;
            {
              py::gil_scoped_release release;
              out = assembleProgram(p, list, options, check, filename);
            }
            if (!out.written()) {
              std::string message;
              for (const auto& d : out.diagnostics.items) message += (message.empty() ? "" : "\n") + d.message;
              throw write::BuildError(message.empty() ? "the program cannot be assembled" : message);
            }
            if (!check) return py::str(out.ptx);
            return py::make_tuple(out.ptx, diagnosticList(out.diagnostics, filename));
          },
          py::arg("units") = py::none(), py::arg("check") = false, py::arg("style") = "packed",
          py::arg("filename") = "<assembled>",
          "the complete module; with check=True, (text, diagnostics) of every check rule on it");
}

void bindBuilder(py::module_& m) {
  using Id = write::DieId;
  using OptId = std::optional<Id>;
  using OptStr = std::optional<std::string>;
  using OptLoc = std::optional<write::Location>;
  py::class_<PyBuilder>(m, "Builder", "The DIE tree of one compile unit; DIEs are named by ints.")
      .def(py::init([](uint16_t version, uint8_t addressSize, const std::string& policy) {
             write::UnitOptions o;
             o.version = version;
             o.addressSize = addressSize;
             if (policy == "chapter6") o.policy = write::FormPolicy::chapter6;
             else if (policy == "compact") o.policy = write::FormPolicy::compact;
             else throw py::value_error("unknown form policy '" + policy + "' (chapter6, compact)");
             return std::make_unique<PyBuilder>(PyBuilder{write::Builder(o)});
           }),
           py::arg("version") = 2, py::arg("address_size") = 8, py::arg("policy") = "chapter6")
      .def_property_readonly("root", [](const PyBuilder& b) { return b.builder.root(); })
      .def_property_readonly("die_count", [](const PyBuilder& b) { return b.builder.unit().dieCount(); })
      .def(
          "compile_unit",
          [](PyBuilder& b, const std::string& producer, const std::string& name, uint16_t language,
             const OptStr& lowPc, bool omitLowPc, bool stmtList, const std::string& compDir) {
            write::CompileUnitDesc d;
            d.producer = producer;
            d.name = name;
            d.language = language;
            d.lowPc = omitLowPc ? std::nullopt : std::optional<write::SymbolRef>(write::SymbolRef{lowPc.value_or("")});
            d.stmtList = stmtList;
            d.compDir = compDir;
            return b.builder.compileUnit(d);
          },
          py::arg("producer") = "", py::arg("name") = "", py::arg("language") = uint16_t{dw::DW_LANG_C_plus_plus},
          py::arg("low_pc") = py::none(), py::arg("omit_low_pc") = false, py::arg("stmt_list") = true,
          py::arg("comp_dir") = "")
      .def(
          "subprogram",
          [](PyBuilder& b, const std::string& name, const std::string& linkageName, unsigned declFile,
             unsigned declLine, OptId type, bool external, const OptStr& lowPc, const OptStr& highPc,
             bool frameBaseCfa, bool inlined, Id parent) {
            write::SubprogramDesc d;
            d.name = name;
            d.linkageName = linkageName;
            d.declFile = declFile;
            d.declLine = declLine;
            d.type = dieOrNone(type);
            d.external = external;
            d.lowPc = symbolOrNone(lowPc);
            d.highPc = symbolOrNone(highPc);
            d.frameBaseCfa = frameBaseCfa;
            const Id id = b.builder.subprogram(d, parent);
            if (inlined) b.builder.unit().set(id, dw::DW_AT_inline, write::Value::unsignedValue(dw::DW_INL_inlined));
            return id;
          },
          py::arg("name") = "", py::arg("linkage_name") = "", py::arg("decl_file") = 0u, py::arg("decl_line") = 0u,
          py::arg("type") = py::none(), py::arg("external") = true, py::arg("low_pc") = py::none(),
          py::arg("high_pc") = py::none(), py::arg("frame_base_cfa") = true, py::arg("inlined") = false,
          py::arg("parent") = Id{0},
          "a function; inlined=True: an abstract one (DW_AT_inline) that inlined_subroutine() names")
      .def(
          "formal_parameter",
          [](PyBuilder& b, Id subprogram, std::string name, unsigned declFile, unsigned declLine, OptId type,
             const OptLoc& location) {
            return b.builder.formalParameter(
                subprogram, variableDesc(std::move(name), declFile, declLine, type, location, false, ""));
          },
          py::arg("subprogram"), py::arg("name"), py::arg("decl_file") = 0u, py::arg("decl_line") = 0u,
          py::arg("type") = py::none(), py::arg("location") = py::none())
      .def(
          "variable",
          [](PyBuilder& b, Id scope, std::string name, unsigned declFile, unsigned declLine, OptId type,
             const OptLoc& location, bool external, std::string linkageName) {
            return b.builder.variable(scope, variableDesc(std::move(name), declFile, declLine, type, location,
                                                          external, std::move(linkageName)));
          },
          py::arg("scope"), py::arg("name"), py::arg("decl_file") = 0u, py::arg("decl_line") = 0u,
          py::arg("type") = py::none(), py::arg("location") = py::none(), py::arg("external") = false,
          py::arg("linkage_name") = "")
      .def(
          "register_variable",
          [](PyBuilder& b, Id scope, const std::string& reg, unsigned declFile, unsigned declLine, OptId type) {
            return b.builder.registerVariable(scope, {reg, declFile, declLine, dieOrNone(type)});
          },
          py::arg("scope"), py::arg("register"), py::arg("decl_file") = 0u, py::arg("decl_line") = 0u,
          py::arg("type") = py::none(), "a variable named after the register it lives in")
      .def(
          "lexical_block",
          [](PyBuilder& b, Id scope, const std::string& begin, const std::string& end) {
            return b.builder.lexicalBlock(scope, {begin}, {end});
          },
          py::arg("scope"), py::arg("begin"), py::arg("end"))
      .def(
          "inlined_subroutine",
          [](PyBuilder& b, Id scope, Id origin, const std::string& begin, const std::string& end, unsigned callFile,
             unsigned callLine) { return b.builder.inlinedSubroutine(scope, origin, {begin}, {end}, callFile, callLine); },
          py::arg("scope"), py::arg("origin"), py::arg("begin"), py::arg("end"), py::arg("call_file"),
          py::arg("call_line"))
      .def(
          "base_type",
          [](PyBuilder& b, const std::string& name, uint8_t encoding, uint64_t byteSize, Id parent) {
            return b.builder.baseType(name, encoding, byteSize, parent);
          },
          py::arg("name"), py::arg("encoding"), py::arg("byte_size"), py::arg("parent") = Id{0})
      .def(
          "pointer_type",
          [](PyBuilder& b, Id pointee, uint8_t addressClass, Id parent) {
            return b.builder.pointerType(pointee, addressClass, parent);
          },
          py::arg("pointee"), py::arg("address_class") = uint8_t{12}, py::arg("parent") = Id{0})
      .def(
          "const_type", [](PyBuilder& b, Id type, Id parent) { return b.builder.constType(type, parent); },
          py::arg("type"), py::arg("parent") = Id{0})
      .def(
          "typedef",
          [](PyBuilder& b, const std::string& name, Id type, Id parent) {
            return b.builder.typedefType(name, type, parent);
          },
          py::arg("name"), py::arg("type"), py::arg("parent") = Id{0})
      .def(
          "struct_type",
          [](PyBuilder& b, const std::string& name, uint64_t byteSize, Id parent) {
            return b.builder.aggregate(dw::DW_TAG_structure_type, name, byteSize, parent);
          },
          py::arg("name"), py::arg("byte_size"), py::arg("parent") = Id{0})
      .def(
          "member",
          [](PyBuilder& b, Id aggregate, const std::string& name, Id type, uint64_t offset, unsigned declFile,
             unsigned declLine) {
            write::MemberDesc d;
            d.name = name;
            d.type = type;
            d.offset = offset;
            d.declFile = declFile;
            d.declLine = declLine;
            return b.builder.member(aggregate, d);
          },
          py::arg("aggregate"), py::arg("name"), py::arg("type"), py::arg("offset"), py::arg("decl_file") = 0u,
          py::arg("decl_line") = 0u)
      .def(
          "array_type",
          [](PyBuilder& b, Id element, const std::vector<uint64_t>& counts, OptId indexType, Id parent) {
            const Id array = b.builder.arrayType(element, parent);
            for (uint64_t n : counts) b.builder.subrange(array, n, dieOrNone(indexType));
            return array;
          },
          py::arg("element"), py::arg("counts"), py::arg("index_type") = py::none(), py::arg("parent") = Id{0},
          "an array of `element`, one subrange per dimension in `counts`");
}

void bindAnnotate(py::module_& m) {
  m.def(
      "_annotate",
      [](const std::string& text, const std::string& name, const std::optional<std::string>& sourceName,
         bool keepLines, bool renameRegisters, bool replace, const std::string& style) {
        write::AnnotateOptions o;
        o.sourceName = sourceName.value_or(name);
        o.keepLines = keepLines;
        o.renameRegisters = renameRegisters;
        o.replace = replace;
        o.style = styleNamed(style);
        std::string error;
        write::Annotated out;
        {
          py::gil_scoped_release release;
          out = annotateText(text, name, o, error);
        }
        if (!error.empty()) throw InputError(error);
        if (!out.written()) {
          std::string message;
          for (const auto& d : out.diagnostics.items)
            if (d.severity == ptxdwarf::Severity::error)
              message += (message.empty() ? "" : "\n") + formatDiagnostic(d, name);
          throw InputError(message.empty() ? name + ": error: annotate refused the text" : message);
        }
        return py::make_tuple(py::bytes(out.ptx), diagnosticList(out.diagnostics, name));
      },
      py::arg("text"), py::arg("name"), py::arg("source_name"), py::arg("keep_lines"), py::arg("rename_registers"),
      py::arg("replace"), py::arg("style"));
}

}  // namespace

void bindProducing(py::module_& m) {
  bindLocation(m);
  bindProgram(m);
  bindBuilder(m);
  bindAnnotate(m);
}

}  // namespace ptxdwarf_python
