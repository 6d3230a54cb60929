// `ptxdump types`: the layouts view::typeLayouts computes, as C
// declarations with pahole's comments (offset and size of each member, holes,
// padding, a summary), or as JSON.
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/json.h"
#include "ptxdwarf/print/views.h"

namespace ptxdwarf::print {

namespace {

// Names are the file's bytes: escaped as dump escapes them, so a name cannot
// start a line (a member, a type) of its own.
using view::MemberLayout;
using view::TypeKind;
using view::TypeLayout;

// The declarator: the member's name where C puts it in its type's spelling
// ("float pos[3]", "void (*fn)(int)", "int (&r)[4]").
std::string declarator(const std::string& type, const std::string& name) {
  if (name.empty()) return type;
  for (std::string_view inner : {"(*)", "(&)", "(&&)"}) {
    size_t at = type.find(inner);
    if (at != std::string::npos)
      return type.substr(0, at + inner.size() - 1) + name + type.substr(at + inner.size() - 1);
  }
  // An array: the name before the first '[' outside template arguments.
  int angle = 0;
  for (size_t i = 0; i < type.size(); ++i) {
    if (type[i] == '<') ++angle;
    if (type[i] == '>') --angle;
    if (type[i] == '[' && angle == 0) return type.substr(0, i) + " " + name + type.substr(i);
  }
  if (!type.empty() && (type.back() == '*' || type.back() == '&')) return type + name;  // "Particle *next"
  return type + " " + name;
}

void pad(std::string& out, size_t column, size_t start) {
  size_t width = out.size() - start;
  out.append(width < column ? column - width : 1, ' ');
}

void appendRight(std::string& out, uint64_t v, size_t width) {
  std::string n = std::to_string(v);
  if (n.size() < width) out.append(width - n.size(), ' ');
  out += n;
}

// pahole's "XXX 3 bytes hole, try to pack": for the whole bytes, then for the bits left.
void hole(std::string& out, uint64_t bits, std::string_view what) {
  auto line = [&](uint64_t n, std::string_view unit) {
    if (n == 0) return;
    out += "\n\t/* XXX " + std::to_string(n) + " " + std::string(unit) + (n == 1 ? " " : "s ") + std::string(what) +
           ", try to pack */\n\n";
  };
  line(bits / 8, "byte");
  line(bits % 8, "bit");
}

// A type's size, "?" where it is not known.
std::string sizeText(const TypeLayout& t) { return t.sizeKnown ? std::to_string(t.size) : "?"; }

void member(std::string& out, const MemberLayout& m) {
  size_t start = out.size();
  out += '\t';
  if (m.isBase) {
    appendEscaped(out, m.type);
    pad(out, 40, start);
    out += "<ancestor>;";
  } else {
    out += declarator(escaped(m.type), escaped(m.name));
    if (m.bitSize) out += ":" + std::to_string(*m.bitSize);
    out += ';';
  }
  pad(out, 56, start);
  out += "/* ";
  if (m.offsetKnown)
    appendRight(out, m.offset, 5);
  else
    out += "    ?";
  if (m.bitOffset) {
    out += ':';
    appendRight(out, *m.bitOffset, 2);
  }
  out += ' ';
  if (m.sizeKnown)
    appendRight(out, m.size, 5);
  else
    out += "    ?";
  out += " */\n";
}

void aggregate(std::string& out, const TypeLayout& t) {
  out += std::string(view::typeKindName(t.kind)) + " " + escaped(t.name) + " {\n";
  uint64_t memberBits = 0, holes = 0, holeBits = 0, bitHoles = 0, bitHoleBits = 0;
  for (const MemberLayout& m : t.members) {
    member(out, m);
    memberBits += m.bitSize ? *m.bitSize : m.size * 8;
    if (m.holeAfterBits) {
      hole(out, m.holeAfterBits, "hole");
      if (m.holeAfterBits >= 8) ++holes, holeBits += m.holeAfterBits / 8 * 8;
      if (m.holeAfterBits % 8) ++bitHoles, bitHoleBits += m.holeAfterBits % 8;
    }
  }
  out += "\n\t/* size: ";
  out += sizeText(t);
  out += ", members: " + std::to_string(t.members.size()) + " */\n";
  if (!t.problem.empty()) {
    out += "\t/* no holes or padding: " + t.problem + " */\n";
  } else if (t.kind != TypeKind::union_) {
    out += "\t/* sum members: " + std::to_string(memberBits / 8);
    if (memberBits % 8) out += ", " + std::to_string(memberBits % 8) + " bits";
    if (holes) out += ", holes: " + std::to_string(holes) + ", sum holes: " + std::to_string(holeBits / 8);
    if (bitHoles)
      out += ", bit holes: " + std::to_string(bitHoles) + ", sum bit holes: " + std::to_string(bitHoleBits) + " bits";
    out += " */\n";
    if (t.paddingBits >= 8) out += "\t/* padding: " + std::to_string(t.paddingBits / 8) + " */\n";
    if (t.paddingBits % 8) out += "\t/* bit_padding: " + std::to_string(t.paddingBits % 8) + " bits */\n";
  }
  out += "};\n";
}

void addressClass(std::string& out, const TypeLayout& t) {
  if (!t.addressClass) return;
  out += ", address class: " + std::to_string(*t.addressClass);
  std::string_view name = cuda::addressClassName(*t.addressClass);
  if (!name.empty()) out += " " + std::string(name);
}

}  // namespace

void typesText(const std::vector<TypeLayout>& types, std::string& out) {
  bool first = true;
  for (const TypeLayout& t : types) {
    if (!first) out += '\n';
    first = false;
    switch (t.kind) {
      case TypeKind::structure:
      case TypeKind::class_:
      case TypeKind::union_:
        aggregate(out, t);
        break;
      case TypeKind::enumeration: {
        out += "enum " + escaped(t.name);
        if (!t.target.empty()) out += " : " + escaped(t.target);
        out += " {\n";
        for (size_t i = 0; i < t.enumerators.size(); ++i)
          out += "\t" + escaped(t.enumerators[i].name) + " = " + std::to_string(t.enumerators[i].value) +
                 (i + 1 < t.enumerators.size() ? ",\n" : "\n");
        out += "};\t/* size: " + sizeText(t) + " */\n";
        break;
      }
      case TypeKind::typedef_:
        out += "typedef " + declarator(escaped(t.target), escaped(t.name)) +
               ";\t/* size: " + sizeText(t) + " */\n";
        break;
      case TypeKind::array:
      case TypeKind::pointer:
        out += "/* " + std::string(view::typeKindName(t.kind)) + " */ " + escaped(t.name) +
               ";\t/* size: " + sizeText(t);
        addressClass(out, t);
        out += " */\n";
        break;
    }
    if (!t.problem.empty() && t.kind != TypeKind::structure && t.kind != TypeKind::class_ &&
        t.kind != TypeKind::union_)
      out += "\t/* " + t.problem + " */\n";
  }
}

namespace {

void membersJson(JsonWriter& w, const std::vector<MemberLayout>& members) {
  w.key("members");
  w.arrayBegin();
  for (const MemberLayout& m : members) {
    w.breakBefore("\n ");
    w.objectBegin();
    w.field("name", m.name);
    w.field("type", m.type);
    w.field("offset", m.offsetKnown ? std::optional(m.offset) : std::nullopt);
    w.field("size", m.sizeKnown ? std::optional(m.size) : std::nullopt);
    if (m.bitSize) {
      w.field("bit_size", *m.bitSize);
      w.field("bit_offset", m.bitOffset.value_or(0));
    }
    if (m.isBase) {
      w.key("base");
      w.boolean(true);
    }
    if (m.holeAfterBits) w.field("hole_after_bits", m.holeAfterBits);
    w.field("die", m.die);
    w.objectEnd();
  }
  w.arrayEnd();
}

void typeJson(JsonWriter& w, const TypeLayout& t) {
  w.breakBefore("\n");
  w.objectBegin();
  w.field("name", t.name);
  w.field("kind", view::typeKindName(t.kind));
  w.field("size", t.sizeKnown ? std::optional(t.size) : std::nullopt);
  w.field("die", t.die);
  if (!t.problem.empty()) w.field("problem", t.problem);
  if (!t.target.empty()) w.field("target", t.target);
  if (t.addressClass) {
    w.field("address_class", *t.addressClass);
    std::string_view name = cuda::addressClassName(*t.addressClass);
    if (!name.empty()) w.field("address_class_name", name);
  }
  if (t.kind == TypeKind::array) {
    w.key("dimensions");
    w.arrayBegin();
    for (uint64_t d : t.dimensions) w.value(d);
    w.arrayEnd();
  }
  if (t.kind == TypeKind::enumeration) {
    w.key("enumerators");
    w.arrayBegin();
    for (const auto& e : t.enumerators) {
      w.objectBegin();
      w.field("name", e.name);
      w.key("value");
      w.signedValue(e.value);
      w.objectEnd();
    }
    w.arrayEnd();
  }
  if (t.kind == TypeKind::structure || t.kind == TypeKind::class_ || t.kind == TypeKind::union_) {
    w.field("padding_bits", t.paddingBits);
    membersJson(w, t.members);
  }
  w.objectEnd();
}

}  // namespace

void typesJson(std::string_view file, const std::vector<TypeLayout>& types, std::string& out) {
  JsonWriter w(out);
  w.objectBegin();
  w.field("file", file);
  w.key("types");
  w.arrayBegin();
  for (const TypeLayout& t : types) typeJson(w, t);
  w.arrayEnd();
  w.objectEnd();
  out += '\n';
}

}  // namespace ptxdwarf::print
