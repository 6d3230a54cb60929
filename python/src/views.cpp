// The views ptxdump prints, from Python: lookup (what a debugger sees at a
// place), the type layouts, the statistics and the dump itself. lookup() and
// types() give the library's structs as Python objects whose attribute names
// are `ptxdump lookup|types --format json`'s keys (asdict() gives that JSON's
// object); statistics() and dump() are ptxdump's output itself.
#include <pybind11/stl.h>

#include "binding.h"
#include "library.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"

namespace ptxdwarf_python {

namespace print = ptxdwarf::print;
namespace view = ptxdwarf::view;
using LoadedPtr = std::shared_ptr<Loaded>;

namespace {


py::object textOrNone(std::string_view s) { return s.empty() ? py::object(py::none()) : py::object(bytesText(s)); }

// lookup's tag spelling: an unknown tag as its hexadecimal value.
std::string scopeTag(uint16_t tag) {
  std::string_view name = ptxdwarf::dw::tagName(tag);
  return name.empty() ? "DW_TAG_" + ptxdwarf::hex(tag, 8) : std::string(name);
}

py::object addressClass(uint64_t value) {
  if (!value) return py::none();
  return bytesText(ptxdwarf::cuda::addressClassName(value));
}

py::object sizeOrNone(bool known, uint64_t v) { return known ? py::object(py::int_(v)) : py::object(py::none()); }

py::dict scopeDict(const view::ScopeInfo& s) {
  py::dict d;
  d["tag"] = scopeTag(s.tag);
  d["name"] = bytesText(s.name);
  d["die"] = s.die;
  if (!s.callFile.empty()) {
    d["call_file"] = bytesText(s.callFile);
    d["call_line"] = s.callLine;
  }
  return d;
}

py::object sassList(const view::VariableInfo& v) {
  if (!v.sass) return py::none();
  py::list out;
  for (const std::string& s : *v.sass) out.append(bytesText(s));
  return out;
}

py::dict variableDict(const view::VariableInfo& v) {
  py::dict d;
  d["name"] = bytesText(v.name);
  d["kind"] = v.parameter ? "parameter" : "variable";
  d["type"] = bytesText(v.type);
  d["location"] = bytesText(v.location);
  d["available"] = v.available;
  if (v.sass) d["sass"] = sassList(v);  // a cubin's
  d["address_class"] = addressClass(v.addressClass);
  d["decl_line"] = v.declLine;
  d["die"] = v.die;
  return d;
}

py::dict matchDict(const view::Match& m) {
  py::dict d;
  d["function"] = bytesText(m.function);
  if (m.pc) d["pc"] = *m.pc;
  d["ptx_lines"] = py::cast(m.ptxLines);
  py::list scopes, variables;
  for (const view::ScopeInfo& s : m.scopes) scopes.append(scopeDict(s));
  for (const view::VariableInfo& v : m.variables) variables.append(variableDict(v));
  d["scopes"] = scopes;
  d["variables"] = variables;
  return d;
}

py::dict memberDict(const view::MemberLayout& m) {
  py::dict d;
  d["name"] = bytesText(m.name);
  d["type"] = bytesText(m.type);
  d["offset"] = sizeOrNone(m.offsetKnown, m.offset);
  d["size"] = sizeOrNone(m.sizeKnown, m.size);
  if (m.bitSize) {
    d["bit_size"] = *m.bitSize;
    d["bit_offset"] = m.bitOffset.value_or(0);
  }
  if (m.isBase) d["base"] = true;
  if (m.holeAfterBits) d["hole_after_bits"] = m.holeAfterBits;
  d["die"] = m.die;
  return d;
}

bool isAggregate(view::TypeKind k) {
  return k == view::TypeKind::structure || k == view::TypeKind::class_ || k == view::TypeKind::union_;
}

py::list enumerators(const view::TypeLayout& t) {
  py::list out;
  for (const view::Enumerator& e : t.enumerators) {
    py::dict d;
    d["name"] = bytesText(e.name);
    d["value"] = e.value;
    out.append(d);
  }
  return out;
}

// The same keys, present in the same cases, as print::typesJson's object.
py::dict typeDict(const view::TypeLayout& t) {
  py::dict d;
  d["name"] = bytesText(t.name);
  d["kind"] = std::string(view::typeKindName(t.kind));
  d["size"] = sizeOrNone(t.sizeKnown, t.size);
  d["die"] = t.die;
  if (!t.problem.empty()) d["problem"] = bytesText(t.problem);
  if (!t.target.empty()) d["target"] = bytesText(t.target);
  if (t.addressClass) {
    d["address_class"] = *t.addressClass;
    std::string_view name = ptxdwarf::cuda::addressClassName(*t.addressClass);
    if (!name.empty()) d["address_class_name"] = bytesText(name);
  }
  if (t.kind == view::TypeKind::array) d["dimensions"] = py::cast(t.dimensions);
  if (t.kind == view::TypeKind::enumeration) d["enumerators"] = enumerators(t);
  if (isAggregate(t.kind)) {
    d["padding_bits"] = t.paddingBits;
    py::list members;
    for (const view::MemberLayout& m : t.members) members.append(memberDict(m));
    d["members"] = members;
  }
  return d;
}

void bindLookupResults(py::module_& m) {
  py::class_<view::ScopeInfo>(m, "Scope", "A scope around a place: a block, an inlined subroutine or the subprogram.")
      .def_property_readonly("tag", [](const view::ScopeInfo& s) { return scopeTag(s.tag); })
      .def_property_readonly("name", [](const view::ScopeInfo& s) { return bytesText(s.name); },
                             "through abstract_origin for inlined subroutines; \"\" for blocks")
      .def_property_readonly("die", [](const view::ScopeInfo& s) { return s.die; }, "the DIE's offset")
      .def_property_readonly("call_file", [](const view::ScopeInfo& s) { return textOrNone(s.callFile); },
                             "an inlined subroutine's call site; None for other scopes")
      .def_property_readonly("call_line",
                             [](const view::ScopeInfo& s) -> py::object {
                               if (s.callFile.empty()) return py::none();
                               return py::int_(s.callLine);
                             })
      .def("asdict", &scopeDict, "the object `ptxdump lookup --format json` prints for the scope")
      .def("__repr__", [](const view::ScopeInfo& s) { return "<ptxdwarf.Scope " + scopeTag(s.tag) + " " + s.name + ">"; });

  py::class_<view::VariableInfo>(m, "Variable", "A variable or parameter visible at a place, and where it lives there.")
      .def_property_readonly("name", [](const view::VariableInfo& v) { return bytesText(v.name); })
      .def_property_readonly("kind", [](const view::VariableInfo& v) { return v.parameter ? "parameter" : "variable"; })
      .def_property_readonly("type", [](const view::VariableInfo& v) { return bytesText(v.type); },
                             "the C spelling (\"int *\", \"geo::Vec3\")")
      .def_property_readonly("location", [](const view::VariableInfo& v) { return bytesText(v.location); },
                             "in PTX terms at the place: \"%r5\", \"_Z4testPi_param_0\", \"__local_depot0+8\"")
      .def_property_readonly("available", [](const view::VariableInfo& v) { return v.available; },
                             "False: no location covers the place (optimized out there)")
      .def_property_readonly("address_class", [](const view::VariableInfo& v) { return addressClass(v.addressClass); },
                             "DW_AT_address_class by name (\"global\", \"local\", ...); None when absent")
      .def_property_readonly("sass", [](const view::VariableInfo& v) { return sassList(v); },
                             "on a cubin: where cuda-gdb reads it, in SASS terms ([\"R4\", \"R5\"], [\"P0\"], "
                             "[\"[param+0x210]\"]); [] when unavailable (<optimized out>); None on PTX")
      .def_property_readonly("decl_line", [](const view::VariableInfo& v) { return v.declLine; })
      .def_property_readonly("die", [](const view::VariableInfo& v) { return v.die; })
      .def("asdict", &variableDict, "the object `ptxdump lookup --format json` prints for the variable")
      .def("__repr__", [](const view::VariableInfo& v) {
        return "<ptxdwarf.Variable " + v.name + ": " + v.location + ">";
      });

  py::class_<view::Match>(m, "LookupMatch", "A place lookup() matched: a function and its instructions there.")
      .def_property_readonly("function", [](const view::Match& x) { return bytesText(x.function); }, "the PTX function")
      .def_property_readonly("ptx_lines", [](const view::Match& x) { return x.ptxLines; },
                             "on a cubin: the embedded PTX's line at pc")
      .def_property_readonly("pc", [](const view::Match& x) { return x.pc; },
                             "on a cubin: the SASS address, relative to the function; None on PTX")
      .def_property_readonly("scopes", [](const view::Match& x) { return x.scopes; }, "innermost first")
      .def_property_readonly("variables", [](const view::Match& x) { return x.variables; },
                             "visible at the first of the instructions")
      .def("asdict", &matchDict, "the object `ptxdump lookup --format json` prints for the match")
      .def("__repr__", [](const view::Match& x) { return "<ptxdwarf.LookupMatch in " + x.function + ">"; });
}

void bindTypeLayouts(py::module_& m) {
  using view::MemberLayout;
  using view::TypeLayout;
  py::class_<MemberLayout>(m, "Member", "A data member or base class subobject of a struct, class or union.")
      .def_property_readonly("name", [](const MemberLayout& x) { return bytesText(x.name); }, "\"\" when unnamed")
      .def_property_readonly("type", [](const MemberLayout& x) { return bytesText(x.type); })
      .def_property_readonly("offset", [](const MemberLayout& x) { return sizeOrNone(x.offsetKnown, x.offset); },
                             "bytes from the start of the type; None when no constant offset")
      .def_property_readonly("size", [](const MemberLayout& x) { return sizeOrNone(x.sizeKnown, x.size); })
      .def_property_readonly("bit_size", [](const MemberLayout& x) { return x.bitSize; }, "None unless a bit field")
      .def_property_readonly("bit_offset",
                             [](const MemberLayout& x) -> std::optional<uint64_t> {
                               if (!x.bitSize) return std::nullopt;
                               return x.bitOffset.value_or(0);
                             },
                             "a bit field's first bit in byte `offset`, least significant first")
      .def_property_readonly("base", [](const MemberLayout& x) { return x.isBase; })
      .def_property_readonly("hole_after_bits", [](const MemberLayout& x) { return x.holeAfterBits; })
      .def_property_readonly("die", [](const MemberLayout& x) { return x.die; })
      .def("asdict", &memberDict, "the object `ptxdump types --format json` prints for the member")
      .def("__repr__", [](const MemberLayout& x) { return "<ptxdwarf.Member " + x.name + ">"; });

  py::class_<TypeLayout>(m, "TypeLayout", "A type's layout, as `ptxdump types` shows it (pahole's holes included).")
      .def_property_readonly("name", [](const TypeLayout& t) { return bytesText(t.name); })
      .def_property_readonly("kind", [](const TypeLayout& t) { return std::string(view::typeKindName(t.kind)); })
      .def_property_readonly("size", [](const TypeLayout& t) { return sizeOrNone(t.sizeKnown, t.size); })
      .def_property_readonly("die", [](const TypeLayout& t) { return t.die; })
      .def_property_readonly("problem", [](const TypeLayout& t) { return textOrNone(t.problem); },
                             "why part of the layout is not given; None when all of it is")
      .def_property_readonly("target", [](const TypeLayout& t) { return textOrNone(t.target); },
                             "typedef: the type named; array: the element type; pointer: the pointee")
      .def_property_readonly("address_class", [](const TypeLayout& t) { return t.addressClass; })
      .def_property_readonly("address_class_name",
                             [](const TypeLayout& t) -> py::object {
                               if (!t.addressClass) return py::none();
                               return textOrNone(ptxdwarf::cuda::addressClassName(*t.addressClass));
                             })
      .def_property_readonly("dimensions",
                             [](const TypeLayout& t) -> py::object {
                               if (t.kind != view::TypeKind::array) return py::none();
                               return py::cast(t.dimensions);
                             })
      .def_property_readonly("enumerators",
                             [](const TypeLayout& t) -> py::object {
                               if (t.kind != view::TypeKind::enumeration) return py::none();
                               return enumerators(t);
                             },
                             "enums: [{\"name\", \"value\"}]; None for other kinds")
      .def_property_readonly("padding_bits",
                             [](const TypeLayout& t) -> py::object {
                               if (!isAggregate(t.kind)) return py::none();
                               return py::int_(t.paddingBits);
                             })
      .def_property_readonly("members",
                             [](const TypeLayout& t) -> py::object {
                               if (!isAggregate(t.kind)) return py::none();
                               return py::cast(t.members);
                             })
      .def("asdict", &typeDict, "the object `ptxdump types --format json` prints for the type")
      .def("__repr__", [](const TypeLayout& t) {
        return "<ptxdwarf.TypeLayout " + std::string(view::typeKindName(t.kind)) + " " + t.name + ">";
      });
}

// `sections`: None (ptxdump's default: the DIE tree, or a -lineinfo file's
// line table), "all", or names among info, abbrev, pubnames, aranges, loc,
// str, line, regmap, sass-lines (ptxdump's --debug-NAME, --debug-regmap and
// --sass-lines flags).
void selectSections(const py::object& sections, print::FileDumpOptions& options) {
  print::DumpOptions& s = options.sections;
  std::vector<std::string> names;
  if (sections.is_none()) names = {};
  else if (py::isinstance<py::str>(sections)) names.push_back(sections.cast<std::string>());
  else names = sections.cast<std::vector<std::string>>();
  s.info = false;
  bool dwarfNamed = false;
  for (const std::string& n : names) {
    bool* flag = n == "info"       ? &s.info
                 : n == "abbrev"   ? &s.abbrev
                 : n == "pubnames" ? &s.pubnames
                 : n == "aranges"  ? &s.aranges
                 : n == "loc"      ? &s.loc
                 : n == "str"      ? &s.str
                 : n == "line"     ? &s.line
                                   : nullptr;
    if (n == "all") s.info = s.abbrev = s.pubnames = s.aranges = s.loc = s.str = s.line = dwarfNamed = true;
    else if (flag) *flag = dwarfNamed = true;
    else if (n == "regmap") options.regmap = true;
    else if (n == "sass-lines") options.sassLines = true;
    else
      throw py::value_error("dump(): no section \"" + n +
                            "\" (all, info, abbrev, pubnames, aranges, loc, str, line, regmap, sass-lines)");
  }
  // As ptxdump with no --debug-NAME flag: the default, beside a cubin's extras.
  if (!dwarfNamed) options.defaultSections = s.info = true;
}

print::DumpFormat dumpFormat(const std::string& format) {
  if (format == "text") return print::DumpFormat::text;
  if (format == "json") return print::DumpFormat::json;
  if (format == "json-lines") return print::DumpFormat::jsonLines;
  throw py::value_error("dump(): format is \"text\", \"json\" or \"json-lines\", not \"" + format + "\"");
}

// llvm-dwarfdump's DIE selection and --show-form, as ptxdump dump takes them.
void selectDies(const py::object& name, bool ignoreCase, bool regex, bool showChildren, bool showParents,
                const py::object& recurseDepth, bool showForm, print::FileDumpOptions& options) {
  print::DumpOptions& s = options.sections;
  if (!name.is_none()) {
    if (py::isinstance<py::str>(name)) s.names.push_back(name.cast<std::string>());
    else s.names = name.cast<std::vector<std::string>>();
  }
  s.ignoreCase = ignoreCase;
  s.regex = regex;
  s.showChildren = showChildren;
  s.showParents = showParents;
  if (!recurseDepth.is_none()) {
    const long depth = recurseDepth.cast<long>();
    if (depth < 0) throw py::value_error("dump(): recurse_depth is a count of levels, not " + std::to_string(depth));
    s.recurseDepth = static_cast<uint32_t>(std::min<long>(depth, UINT32_MAX));
  }
  s.showForm = showForm;
  if (options.format == print::DumpFormat::json && !s.names.empty())
    throw py::value_error("dump(): name selects DIEs of the text dump (llvm-dwarfdump's); it has no JSON form");
  if (std::string error; !print::validNamePatterns(s, error)) throw py::value_error("dump(): " + error);
}

}  // namespace

void bindViews(py::module_& m, py::class_<Loaded, std::shared_ptr<Loaded>>& module) {
  bindLookupResults(m);
  bindTypeLayouts(m);
  module
      .def(
          "lookup",
          [](const LoadedPtr& l, const std::string& at, bool strict) {
            view::LookupResult r;
            {
              py::gil_scoped_release release;
              r = lookupAt(*l, at);
            }
            if (r.matches.empty() && strict) throw InputError(lookupError(*l, r));
            return r.matches;
          },
          py::arg("at"), py::arg("strict") = false,
          "What a debugger sees at `at` (\"k.cu:42\", \"ptx:LINE\", a function name, on a cubin \"FUNCTION+0xPC\"), "
          "as `ptxdump lookup`: "
          "a LookupMatch per place matched; [] when nothing matches (ptxdump's exit status 1), or with "
          "strict=True Error with ptxdump's message")
      .def(
          "types",
          [](const LoadedPtr& l) {
            std::vector<view::TypeLayout> types;
            {
              py::gil_scoped_release release;
              types = typeLayouts(*l);
            }
            return types;
          },
          "Every struct, class, union, enum, typedef, array and pointer type's layout, as `ptxdump types`")
      .def(
          "statistics",
          [](const LoadedPtr& l) {
            std::string json;
            {
              py::gil_scoped_release release;
              json = statisticsJson(*l);
            }
            py::dict figures = py::module_::import("json").attr("loads")(py::bytes(json));
            figures["file"] = bytesText(l->name);  // the name's bytes as every other string, not the JSON's \u00XX
            return figures;
          },
          "The debug-information figures, a dict equal to `ptxdump dump --statistics`' JSON object")
      .def(
          "dump",
          [](const LoadedPtr& l, const std::string& format, const py::object& sections, const py::object& name,
             bool ignoreCase, bool regex, bool showChildren, bool showParents, const py::object& recurseDepth,
             bool showForm) {
            print::FileDumpOptions options;
            options.format = dumpFormat(format);
            selectSections(sections, options);
            selectDies(name, ignoreCase, regex, showChildren, showParents, recurseDepth, showForm, options);
            std::string out;
            {
              py::gil_scoped_release release;
              out = dumpOutput(*l, options);
            }
            return bytesText(out);
          },
          py::arg("format") = "text", py::arg("sections") = py::none(), py::kw_only(), py::arg("name") = py::none(),
          py::arg("ignore_case") = false, py::arg("regex") = false, py::arg("show_children") = false,
          py::arg("show_parents") = false, py::arg("recurse_depth") = py::none(), py::arg("show_form") = false,
          "What `ptxdump dump` prints: format \"text\", \"json\" or \"json-lines\"; sections None (the "
          "default), \"all\" or names among info, abbrev, pubnames, aranges, loc, str, line, and for a cubin "
          "regmap and sass-lines; name (a string or a list), ignore_case, regex, show_children, show_parents, "
          "recurse_depth: llvm-dwarfdump's DIE selection (--name, -c, -p, -r); show_form: --show-form");
}

}  // namespace ptxdwarf_python
