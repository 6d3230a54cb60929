// The extension module ptxdwarf._ptxdwarf; python/ptxdwarf/__init__.py is its face.
#include "binding.h"
#include "library.h"
#include "ptxdwarf/write/unit.h"

namespace ptxdwarf_python {

py::list diagnosticList(const ptxdwarf::Diagnostics& diagnostics, const std::string& file) {
  py::list out;
  for (const ptxdwarf::Diagnostic& d : diagnostics.items) out.append(PyDiagnostic{d, file});
  return out;
}

void bindDiagnostics(py::module_& m) {
  py::class_<PyDiagnostic>(m, "Diagnostic", "One problem found: by the reader, the checker or the assembler.")
      .def_property_readonly("severity",
                             [](const PyDiagnostic& d) { return std::string(severityName(d.diagnostic.severity)); })
      .def_property_readonly("rule", [](const PyDiagnostic& d) { return d.diagnostic.rule; },
                             "the check rule (\"ref-target\", ...); \"\" for the reader's errors")
      .def_property_readonly("message", [](const PyDiagnostic& d) { return d.diagnostic.message; })
      .def_property_readonly("line", [](const PyDiagnostic& d) { return d.diagnostic.loc.line; },
                             "in the PTX text, from 1; 0: unknown")
      .def_property_readonly("column", [](const PyDiagnostic& d) { return d.diagnostic.loc.col; })
      .def_property_readonly("section", [](const PyDiagnostic& d) { return d.diagnostic.section; },
                             "\".debug_info\", ...; \"\" when not about a section byte")
      .def_property_readonly("offset",
                             [](const PyDiagnostic& d) -> py::object {
                               if (d.diagnostic.offset < 0) return py::none();
                               return py::int_(d.diagnostic.offset);
                             },
                             "in `section`; None when not applicable")
      .def_property_readonly("file", [](const PyDiagnostic& d) { return d.file; })
      .def("__str__", [](const PyDiagnostic& d) { return formatDiagnostic(d.diagnostic, d.file); })
      .def("__repr__", [](const PyDiagnostic& d) {
        return "<ptxdwarf.Diagnostic " + formatDiagnostic(d.diagnostic, d.file) + ">";
      });
}

}  // namespace ptxdwarf_python

PYBIND11_MODULE(_ptxdwarf, m) {
  namespace pp = ptxdwarf_python;
  m.doc() = "ptxdwarf: the DWARF of NVIDIA PTX, read, checked and produced (the C++ library's binding)";
  m.attr("__version__") = PTXDWARF_PYTHON_VERSION;
  static pybind11::exception<pp::InputError> error(m, "Error", PyExc_ValueError);
  static pybind11::exception<ptxdwarf::write::BuildError> buildError(m, "BuildError", error.ptr());
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pp::InputError& e) {
      error(e.what());
    } catch (const ptxdwarf::write::BuildError& e) {
      buildError(e.what());
    }
  });
  pp::bindDiagnostics(m);
  pp::bindReading(m);
  pp::bindProducing(m);
}
