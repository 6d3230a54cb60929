// The C API's shared parts (not installed): the handles behind the opaque C
// types, guard() (every exception becomes a status and a thread-local
// message: nothing is thrown across the C boundary), and the checks of
// arguments every entry point makes. The entry points are in the files of
// this folder by area: status, unit (units, DIEs, attributes), expr
// (expressions and locations), sections (encode, read, render), program,
// text (annotate, strip, remap) and view (a module read or opened, lookup).
#pragma once

#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/ptxdwarf.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/remap.h"
#include "ptxdwarf/write/strip.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/program.h"
#include "ptxdwarf/load.h"


struct ptxdwarf_unit {
  ptxdwarf::write::Builder builder;
};

struct ptxdwarf_expr {
  bool isList = false;
  ptxdwarf::write::Expr expr;
  uint8_t addressClass = 0;
  std::vector<ptxdwarf::write::LocationRange> ranges;  // isList

  ptxdwarf::write::Location location() const {
    return isList ? ptxdwarf::write::Location::list(ranges) : ptxdwarf::write::Location::expression(expr, addressClass);
  }
};

struct ptxdwarf_sections {
  std::vector<ptxdwarf::SectionImage> images;
};

struct ptxdwarf_program {
  explicit ptxdwarf_program(ptxdwarf::write::ProgramOptions options) : program(std::move(options)) {}
  ptxdwarf::write::Program program;
  std::deque<std::string> names;  // label names handed out: they live as long as the program

  const char* keep(std::string name) { return names.emplace_back(std::move(name)).c_str(); }
};

struct ptxdwarf_diagnostics {
  ptxdwarf::Diagnostics diagnostics;
};

struct ptxdwarf_module {
  ptxdwarf::Loaded loaded;  // the text read (load() or loadText()) and its DWARF decoded
};

struct ptxdwarf_lookup {
  ptxdwarf::view::LookupResult result;
  // ptxdwarf_lookup_variable_sass's arrays: per match, per variable, its sass strings.
  std::vector<std::vector<std::vector<const char*>>> sass;
};

namespace ptxdwarf::capi {


inline thread_local std::string lastError;
inline thread_local bool lastErrorLost = false;  // the message itself could not be stored

// A failure with its status, thrown inside guard() only.
struct Failure {
  ptxdwarf_status status;
  std::string message;
};

[[noreturn]] inline void fail(ptxdwarf_status status, std::string message) { throw Failure{status, std::move(message)}; }

inline ptxdwarf_status setError(ptxdwarf_status status, const char* message) noexcept {
  try {
    lastError = message;
    lastErrorLost = false;
  } catch (...) {
    lastError.clear();
    lastErrorLost = true;
  }
  return status;
}

template <class F>
inline ptxdwarf_status guard(F&& body) noexcept {
  lastError.clear();
  lastErrorLost = false;
  try {
    body();
    return PTXDWARF_OK;
  } catch (const Failure& e) {
    return setError(e.status, e.message.c_str());
  } catch (const write::BuildError& e) {
    return setError(PTXDWARF_E_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return setError(PTXDWARF_E_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    std::string m;
    try {
      m = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    return setError(PTXDWARF_E_INTERNAL, m.empty() ? e.what() : m.c_str());
  } catch (...) {
    return setError(PTXDWARF_E_INTERNAL, "internal error: unknown exception");
  }
}

template <class T>
inline T& need(T* p, const char* what) {
  if (!p) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return *p;
}

inline void needOut(const void* p, const char* what) {
  if (!p) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string("the output pointer '") + what + "' is NULL");
}

inline std::string required(const char* s, const char* what) {
  if (!s) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return s;
}

inline std::string optional(const char* s) { return s ? std::string(s) : std::string(); }

// A caller's text and length (NULL is the empty text only when the length is 0).
inline std::string_view textOf(const char* text, size_t length) {
  if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
  return std::string_view(text ? text : "", length);
}

inline uint8_t addressSize(uint8_t size) {
  if (size == 0) return 8;
  if (size != 4 && size != 8)
    fail(PTXDWARF_E_INVALID_ARGUMENT, "address size must be 4 or 8 (0 for 8), not " + std::to_string(size));
  return size;
}

inline write::Unit& unitOf(ptxdwarf_unit* u) { return need(u, "the unit").builder.unit(); }

inline std::string dieError(write::DieId id, const write::Unit& unit, const char* role) {
  return std::string(role) + ": DIE id " + std::to_string(id) + " does not belong to this unit (it has " +
         std::to_string(unit.size()) + " DIEs)";
}

// A DIE that must exist.
inline write::DieId die(const write::Unit& unit, ptxdwarf_die id, const char* role) {
  if (id >= unit.size()) fail(PTXDWARF_E_BAD_DIE, dieError(id, unit, role));
  return id;
}
// A parent: an existing DIE or PTXDWARF_DETACHED.
inline write::DieId parent(const write::Unit& unit, ptxdwarf_die id) {
  return id == PTXDWARF_DETACHED ? write::kDetached : die(unit, id, "parent");
}
// An optional reference (a type): 0 and PTXDWARF_NO_DIE mean none.
inline write::DieId optionalDie(const write::Unit& unit, ptxdwarf_die id, const char* role) {
  return id == 0 || id == PTXDWARF_NO_DIE ? write::kNoDie : die(unit, id, role);
}

// Runs code that packs a register name: its BuildError is a bad register.
template <class F>
inline void withRegister(F&& f) {
  try {
    f();
  } catch (const write::BuildError& e) {
    fail(PTXDWARF_E_BAD_REGISTER, e.what());
  }
}

// The item at `index` of a handle's list, or PTXDWARF_E_NOT_FOUND ("row 7 of 5").
template <class T>
inline const T& itemAt(const std::vector<T>& items, size_t index, const char* what) {
  if (index >= items.size())
    fail(PTXDWARF_E_NOT_FOUND, std::string(what) + " " + std::to_string(index) + " of " + std::to_string(items.size()));
  return items[index];
}

inline write::Expr& exprOf(ptxdwarf_expr* e) {
  ptxdwarf_expr& x = need(e, "the expression");
  if (x.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "cannot append operations to a location list");
  return x.expr;
}

inline ptxdwarf_expr* newExpr(write::Location location) {
  auto* x = new ptxdwarf_expr;
  x->expr = location.expr();
  x->addressClass = location.addressClass();
  return x;
}

// The value a caller stored in a C enum field or argument, read as the
// integer it is: C lets a caller store any int there (a `ptxdwarf_style` of
// 77), and loading such a value as the C++ enum type is undefined behaviour
// (UBSan's -fsanitize=enum stops on it). Every enum the API reads goes
// through here and is checked against its known values.
template <class E>
inline long long enumValue(const E& e) {
  static_assert(std::is_enum_v<E>);
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &e, sizeof raw);
  return static_cast<long long>(raw);
}

inline ptx::StateSpace space(const ptxdwarf_space& s) {
  switch (enumValue(s)) {
    case PTXDWARF_SPACE_NONE:
      return ptx::StateSpace::none;
    case PTXDWARF_SPACE_REG:
      return ptx::StateSpace::reg;
    case PTXDWARF_SPACE_SREG:
      return ptx::StateSpace::sreg;
    case PTXDWARF_SPACE_CONST:
      return ptx::StateSpace::const_;
    case PTXDWARF_SPACE_GLOBAL:
      return ptx::StateSpace::global;
    case PTXDWARF_SPACE_LOCAL:
      return ptx::StateSpace::local;
    case PTXDWARF_SPACE_PARAM:
      return ptx::StateSpace::param;
    case PTXDWARF_SPACE_SHARED:
      return ptx::StateSpace::shared;
    case PTXDWARF_SPACE_TEX:
      return ptx::StateSpace::tex;
    case PTXDWARF_SPACE_SURF:
      return ptx::StateSpace::surf;
    case PTXDWARF_SPACE_SAMPLER:
      return ptx::StateSpace::sampler;
    case PTXDWARF_SPACE_GENERIC:
      return ptx::StateSpace::generic;
  }
  fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown state space " + std::to_string(enumValue(s)));
}

// A location a DIE is given: an expression must say something.
inline write::Location nonEmptyLocation(const ptxdwarf_expr& location) {
  write::Location l = location.location();
  if (l.kind() == write::Location::Kind::expression && l.expr().empty())
    fail(PTXDWARF_E_INVALID_ARGUMENT, "the location is an empty expression");
  return l;
}

inline void setLocation(write::Unit& unit, write::DieId d, const ptxdwarf_expr& location) {
  write::Location l = nonEmptyLocation(location);
  if (l.kind() == write::Location::Kind::expression) {
    unit.set(d, dw::DW_AT_location, write::Value::expression(l.expr()));
  } else {
    write::Value v;
    v.kind = write::Value::Kind::locationList;
    v.list = unit.addLocationList(l.entries());
    unit.set(d, dw::DW_AT_location, std::move(v));
  }
  if (l.addressClass()) unit.set(d, dw::DW_AT_address_class, write::Value::unsignedValue(l.addressClass()));
}

inline write::VariableDesc variableDesc(const write::Unit& unit, const ptxdwarf_variable_desc& d) {
  write::VariableDesc v;
  v.name = optional(d.name);
  v.declFile = d.decl_file;
  v.declLine = d.decl_line;
  v.type = optionalDie(unit, d.type, "type");
  if (d.location) v.location = nonEmptyLocation(*d.location);
  v.external = d.external != 0;
  v.linkageName = optional(d.linkage_name);
  return v;
}

inline std::string joinErrors(const Diagnostics& diags, std::string_view file) {
  std::string out;
  size_t shown = 0;
  for (const Diagnostic& d : diags.items) {
    if (d.severity != Severity::error) continue;
    if (shown == 20) {
      out += "\n(" + std::to_string(diags.errorCount() - shown) + " more errors)";
      break;
    }
    if (!out.empty()) out += '\n';
    out += file.empty() ? d.message : d.format(file);
    if (file.empty() && !d.section.empty() && d.offset >= 0)
      out += " (" + d.section + "+" + std::to_string(d.offset) + ")";
    ++shown;
  }
  return out;
}

inline write::EncodeOptions encodeOptions(const ptxdwarf_encode_options* o) {
  write::EncodeOptions e;
  if (!o) return e;
  e.pubnames = !o->no_pubnames;
  e.aranges = o->aranges != 0;
  e.pubnamesLength = o->pubnames_length_chapter6 ? write::UnitLengthConvention::unitLengthField
                                                 : write::UnitLengthConvention::totalSize;
  e.siblings = o->siblings != 0;
  return e;
}

inline const SectionImage& sectionAt(const ptxdwarf_sections* s, size_t index) {
  const ptxdwarf_sections& x = need(s, "the sections");
  if (index >= x.images.size())
    fail(PTXDWARF_E_NOT_FOUND, "section index " + std::to_string(index) + " is out of range (there are " +
                                   std::to_string(x.images.size()) + ")");
  return x.images[index];
}

template <class F>
inline ptxdwarf_status addDie(ptxdwarf_unit* u, ptxdwarf_die* out, F&& make) {
  return guard([&] {
    write::Builder& b = need(u, "the unit").builder;
    needOut(out, "out");
    write::DieId id = make(b, b.unit());
    *out = id;
  });
}

inline write::Style styleOf(const ptxdwarf_style& style) {
  switch (enumValue(style)) {
    case PTXDWARF_STYLE_PACKED:
      return write::Style::packed;
    case PTXDWARF_STYLE_ONE_PER_LINE:
      return write::Style::onePerLine;
    case PTXDWARF_STYLE_VERBOSE:
      return write::Style::verbose;
    case PTXDWARF_STYLE_DENSE:
      return write::Style::dense;
  }
  fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown style " + std::to_string(enumValue(style)));
}



inline write::ProgramOptions programOptions(const ptxdwarf_program_options* o) {
  write::ProgramOptions p;
  if (!o) return p;
  if (o->version_major || o->version_minor) p.version = ptx::Version{o->version_major, o->version_minor, true};
  if (o->target) p.target = o->target;
  if (o->address_size) p.addressSize = o->address_size;
  p.flattenInlined = o->flatten_inlined != 0;
  if (o->label_prefix) p.labelPrefix = o->label_prefix;
  return p;
}

inline write::Program& programOf(ptxdwarf_program* p) { return need(p, "the program").program; }

inline char* mallocCopy(std::string_view text) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (!buffer) throw std::bad_alloc();
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return buffer;
}

inline const Diagnostic& diagnosticAt(const ptxdwarf_diagnostics* d, size_t index) {
  const ptxdwarf_diagnostics& x = need(d, "the diagnostics");
  if (index >= x.diagnostics.items.size())
    fail(PTXDWARF_E_NOT_FOUND, "diagnostic index " + std::to_string(index) + " is out of range (there are " +
                                   std::to_string(x.diagnostics.items.size()) + ")");
  return x.diagnostics.items[index];
}


}  // namespace ptxdwarf::capi
