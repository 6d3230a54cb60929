// What the parts of the extension share: the exceptions, the diagnostic type.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"

namespace ptxdwarf_python {

namespace py = pybind11;

// Raised as ptxdwarf.Error (a ValueError): the input cannot be read; the
// message is `file:line:col: error: ...` lines.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One diagnostic with the name of the text it is about (for str()).
struct PyDiagnostic {
  ptxdwarf::Diagnostic diagnostic;
  std::string file;
};

py::list diagnosticList(const ptxdwarf::Diagnostics& diagnostics, const std::string& file);

// The file's strings are bytes: decoded as UTF-8, any other byte kept as a
// lone surrogate (str.encode("utf-8", "surrogateescape") gives the bytes back).
// Every string the package hands out is made so.
py::str bytesText(std::string_view s);

void bindDiagnostics(py::module_& m);
void bindReading(py::module_& m);
void bindProducing(py::module_& m);
struct Loaded;
// lookup(), types(), statistics() and dump() on the Module class.
void bindViews(py::module_& m, py::class_<Loaded, std::shared_ptr<Loaded>>& module);
// line_rows(), regmap(), sass_lines() and embedded_ptx() of a cubin on the Module class.
void bindCubin(py::class_<Loaded, std::shared_ptr<Loaded>>& module);

}  // namespace ptxdwarf_python
