// Reading, in pyelftools' shape: Module -> units -> DIEs -> attributes, the
// line table's rows, the checker's diagnostics. Every object holds the
// module it points into (a shared_ptr<Loaded>), so any of them keeps the
// text, the model and the decoded DWARF alive on its own.
#include <pybind11/stl.h>

#include <new>
#include <vector>

#include "binding.h"
#include "library.h"
#include "ptxdwarf/demangle.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/inline_frames.h"

namespace ptxdwarf_python {

namespace ptx = ptxdwarf::ptx;
namespace read = ptxdwarf::read;
namespace dw = ptxdwarf::dw;
using LoadedPtr = std::shared_ptr<Loaded>;

// A DIE: its module and its index in the module's DIE array.
struct DieRef {
  LoadedPtr owner;
  uint32_t index = 0;
  const read::Die& die() const { return owner->dwarf.dies[index]; }
};

// The Python object of a DIE: a type of the C API, as Attribute is (one
// allocation; no pybind11 instance registry), converted to and from DieRef
// by the type caster below, so that the binding's functions take and return
// DieRef.
struct DieObject {
  PyObject_HEAD
  DieRef ref;  // constructed in place by newDie, destroyed by dieDealloc
};

PyTypeObject* dieType = nullptr;

PyObject* newDie(const DieRef& ref) {
  auto* self = PyObject_New(DieObject, dieType);
  if (!self) return nullptr;
  new (&self->ref) DieRef(ref);
  return reinterpret_cast<PyObject*>(self);
}

void dieDealloc(PyObject* o) {
  reinterpret_cast<DieObject*>(o)->ref.~DieRef();
  PyTypeObject* type = Py_TYPE(o);
  PyObject_Free(o);
  Py_DECREF(type);
}

}  // namespace ptxdwarf_python

namespace pybind11::detail {
template <>
struct type_caster<ptxdwarf_python::DieRef> {
  PYBIND11_TYPE_CASTER(ptxdwarf_python::DieRef, const_name("DIE"));
  bool load(handle src, bool) {
    if (!ptxdwarf_python::dieType || !PyObject_TypeCheck(src.ptr(), ptxdwarf_python::dieType)) return false;
    value = reinterpret_cast<ptxdwarf_python::DieObject*>(src.ptr())->ref;
    return true;
  }
  static handle cast(const ptxdwarf_python::DieRef& d, return_value_policy, handle) {
    return ptxdwarf_python::newDie(d);
  }
};
}  // namespace pybind11::detail

namespace ptxdwarf_python {

py::str bytesText(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

namespace {

// The names, made once per code (a code is 16 bits: a table indexed by it):
// a module of 200,000 attributes has a few dozen distinct ones. Never freed
// (they live as long as the interpreter).
template <std::string (*Name)(uint16_t)>
const py::str& cachedName(uint16_t code) {
  static auto* cache = new std::vector<py::str>(size_t{1} << 16, py::reinterpret_steal<py::str>(nullptr));
  py::str& name = (*cache)[code];
  if (!name.ptr()) name = py::str(Name(code));
  return name;
}

struct UnitRef {
  LoadedPtr owner;
  uint32_t index = 0;
  const read::Unit& unit() const { return owner->dwarf.units[index]; }
};

// One attribute, decoded: the value's bytes stay in the module's sections.
// A type of the C API, not a pybind11 class: a module has hundreds of
// thousands of attributes, and a pybind11 instance costs a heap block and an
// entry in its registry of instances each; this one is one allocation.
struct AttributeObject {
  PyObject_HEAD
  LoadedPtr owner;  // constructed in place by newAttribute, destroyed by attributeDealloc
  uint32_t die;
  read::AttrValue value;
};

PyTypeObject* attributeType = nullptr;

PyObject* newAttribute(const LoadedPtr& owner, uint32_t die, const read::AttrValue& value) {
  auto* self = PyObject_New(AttributeObject, attributeType);
  if (!self) throw py::error_already_set();
  new (&self->owner) LoadedPtr(owner);
  self->die = die;
  new (&self->value) read::AttrValue(value);
  return reinterpret_cast<PyObject*>(self);
}

void attributeDealloc(PyObject* o) {
  auto* self = reinterpret_cast<AttributeObject*>(o);
  self->owner.~LoadedPtr();
  PyTypeObject* type = Py_TYPE(o);
  PyObject_Free(o);
  Py_DECREF(type);  // a heap type: each instance holds a reference to it
}

py::object dieOrNone(const LoadedPtr& owner, const read::Die* die) {
  if (!die) return py::none();
  return py::cast(DieRef{owner, static_cast<uint32_t>(die - owner->dwarf.dies.data())});
}

// The value as the JSON dump gives it: the characters of a string, the
// bytes of a block, the signed value of sdata, else the number (the
// absolute .debug_info offset for a reference; the bytes' zero for a
// relocated operand, whose PTX expression is `symbol`).
py::object attributeValue(const read::AttrValue& v) {
  if (v.isString()) return bytesText(v.string());
  if (v.isBlock()) {
    const auto b = v.block();
    return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
  }
  if (v.form == dw::DW_FORM_sdata) return py::int_(v.svalue());
  return py::int_(v.value);
}

py::list attributeList(const DieRef& d) {
  py::list out;
  for (const read::AttrValue& v : d.owner->dwarf.attributes(d.die()))
    out.append(py::reinterpret_steal<py::object>(newAttribute(d.owner, d.index, v)));
  return out;
}

// pyelftools' DIE.attributes: name -> attribute (the first, where a DIE
// repeats one).
py::dict attributeMap(const DieRef& d) {
  py::dict out;
  for (const read::AttrValue& v : d.owner->dwarf.attributes(d.die())) {
    const py::str& key = cachedName<attributeName>(v.name);
    if (PyDict_Contains(out.ptr(), key.ptr())) continue;
    auto attribute = py::reinterpret_steal<py::object>(newAttribute(d.owner, d.index, v));
    if (PyDict_SetItem(out.ptr(), key.ptr(), attribute.ptr()) != 0) throw py::error_already_set();
  }
  return out;
}

py::list children(const DieRef& d) {
  py::list out;
  const read::Dwarf& dwarf = d.owner->dwarf;
  ptxdwarf::view::forEachChild(dwarf, d.die(), &d.owner->subtreeEnds(), [&](const read::Die& c) {
    out.append(DieRef{d.owner, static_cast<uint32_t>(&c - dwarf.dies.data())});
    return true;
  });
  return out;
}

py::object attributeNamed(const DieRef& d, uint16_t name) {
  if (auto v = d.owner->dwarf.attribute(d.die(), name))
    return py::reinterpret_steal<py::object>(newAttribute(d.owner, d.index, *v));
  return py::none();
}

// The DIEs of a unit in order (NULL entries left out).
struct DieIterator {
  LoadedPtr owner;
  uint32_t next = 0, end = 0;
  DieRef advance() {
    const auto& dies = owner->dwarf.dies;
    while (next < end && dies[next].isNull()) ++next;
    if (next >= end) throw py::stop_iteration();
    return DieRef{owner, next++};
  }
};

// ---- the line table --------------------------------------------------------

struct LineTableRef {
  LoadedPtr owner;
  const ptx::LineTable& table() const { return owner->lineTable(); }
};

struct RowRef {
  LoadedPtr owner;
  uint32_t row = 0;
  const ptx::LineTable& table() const { return owner->lineTable(); }
  const ptx::LocRecord& record() const { return owner->module().locs[table().rows[row].loc]; }
};

// One level of an inline stack: the function inlined and where it was called.
struct Frame {
  std::optional<std::string> function;  // demangled; None when .debug_str has no string at the label
  std::string label;                    // the `function_name` operand
  std::optional<std::string> file;      // the call site's path; None when not in the file table
  unsigned fileIndex = 0, line = 0, column = 0;
  bool resolved = false;  // an earlier `.loc` used the call site (ptxas needs one)
};

std::optional<std::string> pathOf(const ptx::LineTable& t, unsigned file) {
  if (const ptx::LineFile* f = t.file(file)) return ptx::pathOf(t, *f);
  return std::nullopt;
}

// The PTX line of the instruction the row's `.loc` applies to; 0 when none follows it.
uint32_t instructionLine(const ptx::Module& m, const ptx::LocRecord& r) {
  if (r.function < 0 || r.instruction == ptx::kNoIndex) return 0;
  const ptx::Function& f = m.functions[static_cast<size_t>(r.function)];
  return r.instruction < f.endInstruction ? m.instructions[r.instruction].line : 0;
}

// At most kInlineFramesShown frames, as ptxdump's rows: inlineFramesOmitted counts the rest.
std::vector<Frame> inlineFrames(const RowRef& r) {
  const ptx::Module& m = r.owner->module();
  const ptx::LineTable& t = r.table();
  std::vector<Frame> out;
  for (uint32_t k : t.inlineStack(r.row, ptxdwarf::kInlineFramesShown)) {
    const ptx::LocRecord& record = m.locs[t.rows[k].loc];
    if (!record.isInlined()) break;  // the outermost row: the function itself
    const ptx::LocInlining& inlining = m.inliningOf(record);
    Frame f;
    if (const auto& name = t.functionNames[inlining.functionName]) f.function = ptxdwarf::demangle(*name);
    f.label = m.locFunctionNames[inlining.functionName];
    f.file = pathOf(t, inlining.inlinedAt.file);
    f.fileIndex = inlining.inlinedAt.file;
    f.line = inlining.inlinedAt.line;
    f.column = inlining.inlinedAt.col;
    f.resolved = t.rows[k].caller != ptx::kNoIndex;
    out.push_back(std::move(f));
  }
  return out;
}

py::object optionalText(const std::optional<std::string>& s) {
  return s ? py::object(bytesText(*s)) : py::object(py::none());
}

// ---- the module ------------------------------------------------------------

LoadedPtr loadOrRaise(std::string text, std::string name) {
  std::string error;
  LoadedPtr loaded;
  {
    py::gil_scoped_release release;
    loaded = loadText(std::move(text), std::move(name), error);
  }
  if (!loaded) throw InputError(error);
  return loaded;
}

LoadedPtr readPath(const std::string& path) {
  std::string text, error;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = readFile(path, text, error);
  }
  if (!ok) throw InputError(error);
  return loadOrRaise(std::move(text), path);
}

LoadedPtr parseText(const py::object& text, const std::string& name) {
  std::string bytes;
  if (py::isinstance<py::bytes>(text)) bytes = text.cast<std::string>();
  else if (py::isinstance<py::str>(text)) bytes = py::reinterpret_borrow<py::str>(text).cast<std::string>();
  else throw py::type_error("parse() takes the PTX text as str or bytes");
  return loadOrRaise(std::move(bytes), name);
}

py::list units(const LoadedPtr& m) {
  py::list out;
  for (uint32_t i = 0; i < m->dwarf.units.size(); ++i) out.append(UnitRef{m, i});
  return out;
}

std::string versionText(const ptx::Version& v) {
  return v.present ? std::to_string(v.major) + "." + std::to_string(v.minor) : std::string();
}

// ---- the Attribute type's getters (C API: no pybind11 dispatch per access) ----

// DIEs and attributes come from a module: Python cannot make one.
PyObject* refuseNew(PyTypeObject* type, PyObject*, PyObject*) {
  PyErr_Format(PyExc_TypeError, "cannot create '%s' instances: they come from a ptxdwarf.Module", type->tp_name);
  return nullptr;
}

const AttributeObject& attributeOf(PyObject* o) { return *reinterpret_cast<const AttributeObject*>(o); }

// Runs `f` returning a py::object; a C++ or Python exception becomes the Python error.
template <class F>
PyObject* guarded(F&& f) {
  try {
    return f().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* getName(PyObject* o, void*) {
  return guarded([&] { return py::object(cachedName<attributeName>(attributeOf(o).value.name)); });
}
PyObject* getForm(PyObject* o, void*) {
  return guarded([&] { return py::object(cachedName<formName>(attributeOf(o).value.form)); });
}
PyObject* getValue(PyObject* o, void*) {
  return guarded([&] { return attributeValue(attributeOf(o).value); });
}
PyObject* getOffset(PyObject* o, void*) { return PyLong_FromUnsignedLong(attributeOf(o).value.offset); }
PyObject* getIndirect(PyObject* o, void*) { return PyBool_FromLong(attributeOf(o).value.indirect); }
PyObject* getSymbol(PyObject* o, void*) {
  return guarded([&]() -> py::object {
    const read::AttrValue& v = attributeOf(o).value;
    if (!v.reloc) return py::none();
    return bytesText(v.reloc->expression());
  });
}
PyObject* getText(PyObject* o, void*) {
  return guarded([&]() -> py::object {
    const AttributeObject& a = attributeOf(o);
    return bytesText(attributeText(*a.owner, a.owner->dwarf.dies[a.die], a.value));
  });
}
PyObject* getReferencedDie(PyObject* o, void*) {
  return guarded([&] {
    const AttributeObject& a = attributeOf(o);
    return dieOrNone(a.owner, a.owner->dwarf.referencedDie(a.value));
  });
}
PyObject* attributeRepr(PyObject* o) {
  return guarded([&] {
    const read::AttrValue& v = attributeOf(o).value;
    return py::object(py::str("<ptxdwarf.Attribute " + attributeName(v.name) + " " + formName(v.form) + ">"));
  });
}

PyGetSetDef attributeGetters[] = {
    {"name", getName, nullptr, "DW_AT_name, ...", nullptr},
    {"form", getForm, nullptr, "DW_FORM_string, ... (DW_FORM_indirect resolved)", nullptr},
    {"value", getValue, nullptr,
     "str for strings, bytes for blocks and expressions, int otherwise (a reference: the absolute .debug_info "
     "offset; a relocated operand: the bytes' 0, see symbol)",
     nullptr},
    {"raw_value", getValue, nullptr, "the same as value", nullptr},
    {"offset", getOffset, nullptr, "of the value's first byte in .debug_info", nullptr},
    {"indirect", getIndirect, nullptr, "whether the form was DW_FORM_indirect", nullptr},
    {"symbol", getSymbol, nullptr,
     "the PTX operand where the value's bytes are relocated (\"func_begin0\", \".debug_loc+138\", \"A-B\"); "
     "None otherwise",
     nullptr},
    {"text", getText, nullptr, "what `ptxdump dump` prints between the parentheses", nullptr},
    {"referenced_die", getReferencedDie, nullptr, "the DIE a reference names; None for other values", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

void bindAttributeType(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(attributeDealloc)},
      {Py_tp_new, reinterpret_cast<void*>(refuseNew)},
      {Py_tp_getset, attributeGetters},
      {Py_tp_repr, reinterpret_cast<void*>(attributeRepr)},
      {Py_tp_doc, const_cast<char*>("One attribute of a DIE, decoded (pyelftools' AttributeValue).")},
      {0, nullptr}};
  static PyType_Spec spec = {"ptxdwarf.Attribute", sizeof(AttributeObject), 0, Py_TPFLAGS_DEFAULT, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  attributeType = reinterpret_cast<PyTypeObject*>(type);  // kept for the interpreter's life
  m.add_object("Attribute", py::reinterpret_borrow<py::object>(type));
}

// ---- the DIE type's getters and methods --------------------------------------

const DieRef& dieOf(PyObject* o) { return reinterpret_cast<const DieObject*>(o)->ref; }

template <py::object (*F)(const DieRef&)>
PyObject* dieGetter(PyObject* o, void*) {
  return guarded([&] { return F(dieOf(o)); });
}
template <py::object (*F)(const DieRef&)>
PyObject* dieMethod(PyObject* o, PyObject*) {
  return guarded([&] { return F(dieOf(o)); });
}

py::object dieTag(const DieRef& d) {
  if (d.die().isNull()) return py::none();
  return cachedName<tagName>(d.die().tag);
}
py::object dieOffset(const DieRef& d) { return py::int_(d.die().offset); }
py::object dieAbbrevCode(const DieRef& d) { return py::int_(d.owner->dwarf.abbrevCode(d.die())); }
py::object dieHasChildren(const DieRef& d) { return py::bool_(d.die().hasChildren); }
py::object dieDepth(const DieRef& d) { return py::int_(d.die().depth); }
py::object dieAttributes(const DieRef& d) { return attributeMap(d); }
py::object dieAttributeList(const DieRef& d) { return attributeList(d); }
py::object dieChildren(const DieRef& d) { return children(d); }
py::object dieIterChildren(const DieRef& d) { return children(d).attr("__iter__")(); }
py::object dieParent(const DieRef& d) { return dieOrNone(d.owner, d.owner->dwarf.parentOf(d.die())); }
py::object dieUnit(const DieRef& d) { return py::cast(UnitRef{d.owner, d.owner->dwarf.unitIndexOf(d.die())}); }
py::object dieName(const DieRef& d) {
  auto v = d.owner->dwarf.attribute(d.die(), dw::DW_AT_name);
  if (!v || !v->isString()) return py::none();
  return bytesText(v->string());
}
py::object dieLocation(const DieRef& d) { return attributeNamed(d, dw::DW_AT_location); }
py::object dieRepr(const DieRef& d) {
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%08x", d.die().offset);
  return py::str("<ptxdwarf.DIE " + tagName(d.die().tag) + " at " + offset + ">");
}

PyObject* dieReprSlot(PyObject* o) { return guarded([&] { return dieRepr(dieOf(o)); }); }

Py_hash_t dieHash(PyObject* o) {
  const DieRef& d = dieOf(o);
  const Py_hash_t h = static_cast<Py_hash_t>(std::hash<const void*>()(d.owner.get()) ^ d.index);
  return h == -1 ? -2 : h;
}

PyObject* dieCompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, dieType)) Py_RETURN_NOTIMPLEMENTED;
  const bool same = dieOf(a).owner == dieOf(b).owner && dieOf(a).index == dieOf(b).index;
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

PyObject* dieFromAttribute(PyObject* o, PyObject* name) {
  return guarded([&]() -> py::object {
    const DieRef& d = dieOf(o);
    const std::string wanted = py::reinterpret_borrow<py::object>(name).cast<std::string>();
    for (const read::AttrValue& v : d.owner->dwarf.attributes(d.die()))
      if (attributeName(v.name) == wanted) return dieOrNone(d.owner, d.owner->dwarf.referencedDie(v));
    throw py::key_error(wanted);
  });
}

PyGetSetDef dieGetters[] = {
    {"tag", dieGetter<dieTag>, nullptr, "\"DW_TAG_subprogram\", ...", nullptr},
    {"offset", dieGetter<dieOffset>, nullptr, "in .debug_info", nullptr},
    {"abbrev_code", dieGetter<dieAbbrevCode>, nullptr, nullptr, nullptr},
    {"has_children", dieGetter<dieHasChildren>, nullptr, nullptr, nullptr},
    {"depth", dieGetter<dieDepth>, nullptr, "0 for the unit DIE", nullptr},
    {"attributes", dieGetter<dieAttributes>, nullptr, "name -> Attribute (the first, where a name repeats)",
     nullptr},
    {"attribute_list", dieGetter<dieAttributeList>, nullptr, "every attribute, in order", nullptr},
    {"children", dieGetter<dieChildren>, nullptr, "the child DIEs, in order (NULL entries left out)", nullptr},
    {"parent", dieGetter<dieParent>, nullptr, "None for the unit DIE", nullptr},
    {"unit", dieGetter<dieUnit>, nullptr, nullptr, nullptr},
    {"name", dieGetter<dieName>, nullptr, "DW_AT_name; None when the DIE has no string one", nullptr},
    {"location", dieGetter<dieLocation>, nullptr,
     "the DW_AT_location attribute (its text: \"DW_OP_regx %r1\"); None when none", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef dieMethods[] = {
    {"iter_children", dieMethod<dieIterChildren>, METH_NOARGS, "an iterator over children"},
    {"get_parent", dieMethod<dieParent>, METH_NOARGS, "parent"},
    {"get_DIE_from_attribute", dieFromAttribute, METH_O, "the DIE the named reference attribute names"},
    {nullptr, nullptr, 0, nullptr}};

void bindDieType(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(dieDealloc)},
      {Py_tp_new, reinterpret_cast<void*>(refuseNew)},
      {Py_tp_getset, dieGetters},
      {Py_tp_methods, dieMethods},
      {Py_tp_repr, reinterpret_cast<void*>(dieReprSlot)},
      {Py_tp_hash, reinterpret_cast<void*>(dieHash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(dieCompare)},
      {Py_tp_doc, const_cast<char*>("A debugging information entry (pyelftools' DIE).")},
      {0, nullptr}};
  static PyType_Spec spec = {"ptxdwarf.DIE", sizeof(DieObject), 0, Py_TPFLAGS_DEFAULT, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  dieType = reinterpret_cast<PyTypeObject*>(type);  // kept for the interpreter's life
  m.add_object("DIE", py::reinterpret_borrow<py::object>(type));
}

void bindUnitsAndDies(py::module_& m) {
  bindAttributeType(m);

  bindDieType(m);

  py::class_<DieIterator>(m, "DIEIterator")
      .def("__iter__", [](DieIterator& it) -> DieIterator& { return it; })
      .def("__next__", &DieIterator::advance);

  py::class_<UnitRef>(m, "Unit", "A compile unit of .debug_info (pyelftools' CompileUnit).")
      .def_property_readonly("offset", [](const UnitRef& u) { return u.unit().offset; })
      .def_property_readonly("length", [](const UnitRef& u) { return u.unit().length; })
      .def_property_readonly("version", [](const UnitRef& u) { return u.unit().version; })
      .def_property_readonly("address_size", [](const UnitRef& u) { return u.unit().addressSize; })
      .def_property_readonly("abbrev_offset", [](const UnitRef& u) { return u.unit().abbrevOffset; })
      .def_property_readonly("top_die", [](const UnitRef& u) -> py::object {
        const read::Unit& unit = u.unit();
        if (unit.dieCount == 0 || u.owner->dwarf.dies[unit.firstDie].isNull()) return py::none();
        return py::cast(DieRef{u.owner, unit.firstDie});
      })
      .def("get_top_DIE", [](const UnitRef& u) { return py::cast(u).attr("top_die"); })
      .def("iter_dies", [](const UnitRef& u) {
        return DieIterator{u.owner, u.unit().firstDie, u.unit().firstDie + u.unit().dieCount};
      })
      .def("iter_DIEs", [](const UnitRef& u) { return py::cast(u).attr("iter_dies")(); })
      .def("__repr__", [](const UnitRef& u) { return "<ptxdwarf.Unit at " + std::to_string(u.unit().offset) + ">"; });
}

void bindLineTable(py::module_& m) {
  py::class_<Frame>(m, "Frame", "One level of an inline stack: `function` inlined at file:line:column.")
      .def_property_readonly("function", [](const Frame& f) { return optionalText(f.function); },
                             "demangled; None when .debug_str has no string at the label")
      .def_property_readonly("label", [](const Frame& f) { return bytesText(f.label); },
                             "the `.loc`'s function_name operand")
      .def_property_readonly("file", [](const Frame& f) { return optionalText(f.file); })
      .def_readonly("file_index", &Frame::fileIndex)
      .def_readonly("line", &Frame::line)
      .def_readonly("column", &Frame::column)
      .def_readonly("resolved", &Frame::resolved, "an earlier .loc used the call site, as ptxas needs")
      .def("__repr__", [](const Frame& f) {
        return "<ptxdwarf.Frame " + f.function.value_or(f.label) + " at " + f.file.value_or("?") + ":" +
               std::to_string(f.line) + ":" + std::to_string(f.column) + ">";
      });

  py::class_<RowRef>(m, "LineRow", "One `.loc`: a row of the line table ptxas builds.")
      .def_property_readonly("file", [](const RowRef& r) { return optionalText(pathOf(r.table(), r.record().file)); },
                             "the path (directory and name); None when the index is not in the file table")
      .def_property_readonly("file_index", [](const RowRef& r) { return r.record().file; })
      .def_property_readonly("line", [](const RowRef& r) { return r.record().line; })
      .def_property_readonly("column", [](const RowRef& r) { return r.record().col; })
      .def_property_readonly("ptx_line",
                             [](const RowRef& r) -> py::object {
                               const uint32_t line = instructionLine(r.owner->module(), r.record());
                               return line ? py::object(py::int_(line)) : py::object(py::none());
                             },
                             "the PTX line of the instruction the .loc applies to; None when none follows")
      .def_property_readonly("loc_line", [](const RowRef& r) { return r.record().loc.line; },
                             "the PTX line of the .loc itself")
      .def_property_readonly("function",
                             [](const RowRef& r) -> py::object {
                               const int32_t f = r.record().function;
                               if (f < 0) return py::none();
                               return bytesText(r.owner->module().functions[static_cast<size_t>(f)].name);
                             },
                             "the PTX function; None at module scope")
      .def_property_readonly("inlined_at", &inlineFrames,
                             "the inline stack, innermost first; [] when not inlined; at most 64 frames, as ptxdump "
                             "prints them")
      .def_property_readonly(
          "inline_frames_omitted",
          [](const RowRef& r) { return ptxdwarf::inlineFramesOmitted(r.table().rows[r.row].inlineDepth); },
          "the frames of the inline stack past those inlined_at gives (0 for a stack of at most 64)")
      .def("__repr__", [](const RowRef& r) {
        return "<ptxdwarf.LineRow " + std::to_string(r.record().file) + ":" + std::to_string(r.record().line) + ":" +
               std::to_string(r.record().col) + ">";
      });

  py::class_<LineTableRef>(m, "LineTable", "The `.file` table and a row per `.loc` (ptxdump --debug-line).")
      .def("__len__", [](const LineTableRef& t) { return t.table().rows.size(); })
      .def("__getitem__",
           [](const LineTableRef& t, py::ssize_t i) {
             const auto n = static_cast<py::ssize_t>(t.table().rows.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("line table row out of range");
             return RowRef{t.owner, static_cast<uint32_t>(i)};
           })
      .def_property_readonly("rows",
                             [](const LineTableRef& t) {
                               py::list out;
                               for (uint32_t i = 0; i < t.table().rows.size(); ++i) out.append(RowRef{t.owner, i});
                               return out;
                             })
      .def("__iter__", [](const LineTableRef& t) { return py::cast(t).attr("rows").attr("__iter__")(); })
      .def_property_readonly("include_directories", [](const LineTableRef& t) {
        py::list out;
        for (const std::string& d : t.table().includeDirectories) out.append(bytesText(d));
        return out;
      })
      .def_property_readonly("files", [](const LineTableRef& t) {
        py::list out;
        const ptx::Module& m = t.owner->module();
        for (const ptx::LineFile& f : t.table().files) {
          const ptx::FileEntry& e = m.files[f.entry];
          py::dict file;
          file["index"] = f.index;
          file["path"] = bytesText(e.path);
          file["directory"] = f.directory;
          file["name"] = bytesText(f.name);
          file["timestamp"] = e.timestamp ? py::object(py::int_(*e.timestamp)) : py::object(py::none());
          file["size"] = e.size ? py::object(py::int_(*e.size)) : py::object(py::none());
          out.append(file);
        }
        return out;
      });
}

void bindModule(py::module_& m) {
  py::class_<Loaded, LoadedPtr> module(m, "Module", "A PTX text read and its DWARF decoded.");
  module
      .def_property_readonly("name", [](const Loaded& l) { return l.name; })
      .def_property_readonly("version", [](const Loaded& l) { return versionText(l.module().version); },
                             "the PTX .version (\"7.5\")")
      .def_property_readonly("targets", [](const Loaded& l) { return l.module().targets; })
      .def_property_readonly("address_size", [](const Loaded& l) { return l.module().addressSize; })
      .def_property_readonly("units", &units)
      .def("iter_CUs", [](const LoadedPtr& l) { return units(l).attr("__iter__")(); })
      .def("has_debug_info", [](const Loaded& l) { return !l.dwarf.units.empty(); })
      .def("get_DIE_from_offset",
           [](const LoadedPtr& l, uint64_t offset) {
             const read::Die* d = l->dwarf.dieAt(offset);
             if (!d) throw py::key_error("no DIE at .debug_info offset " + std::to_string(offset));
             return DieRef{l, static_cast<uint32_t>(d - l->dwarf.dies.data())};
           })
      .def_property_readonly("diagnostics",
                             [](const Loaded& l) { return diagnosticList(l.read.diagnostics, l.name); },
                             "the reader's warnings")
      .def_property_readonly("decode_diagnostics",
                             [](const Loaded& l) { return diagnosticList(l.dwarf.diagnostics, l.name); },
                             "what the decoder found wrong in the sections (check() reports them too)")
      .def("line_table",
           [](const LoadedPtr& l) {
             {
               py::gil_scoped_release release;
               l->lineTable();
             }
             return LineTableRef{l};
           })
      .def(
          "check",
          [](const LoadedPtr& l, bool roundTrip) {
            ptxdwarf::Diagnostics found;
            {
              py::gil_scoped_release release;
              found = runCheck(*l, roundTrip);
            }
            return diagnosticList(found, l->name);
          },
          py::arg("round_trip") = true, "every ptxdump check rule: what `ptxdump check` reports")
      .def("__repr__", [](const Loaded& l) { return "<ptxdwarf.Module " + l.name + ">"; });
  bindViews(m, module);
  bindCubin(module);

  m.def("read", &readPath, py::arg("path"), "Reads and decodes the PTX file at `path`.");
  m.def("parse", &parseText, py::arg("text"), py::arg("name") = "<input>",
        "Reads and decodes PTX text (str or bytes); `name` names it in diagnostics.");
}

}  // namespace

void bindReading(py::module_& m) {
  bindUnitsAndDies(m);
  bindLineTable(m);
  bindModule(m);
}

}  // namespace ptxdwarf_python
