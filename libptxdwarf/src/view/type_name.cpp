// llvm::DWARFTypePrinter (LLVM 14, DWARFDie.cpp) over the flat DIE array:
// moved here from ptxdump so that the view, the dump and bindings share it.
#include "ptxdwarf/view/type_name.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::view {

namespace {

using read::AttrValue;
using read::Die;
using read::Dwarf;

// Numbers as format.h spells them, and a bound's sum (upper bound + 1, lower
// bound + count) exactly: [0, 2^64 - 1] holds 2^64 elements, which LLVM's
// 64-bit sum writes as 0.
using ptxdwarf::appendDec;
void appendDec(std::string& out, unsigned __int128 v) {
  if (v <= UINT64_MAX) return appendDec(out, static_cast<uint64_t>(v));
  std::string digits;
  for (; v; v /= 10) digits += static_cast<char>('0' + static_cast<int>(v % 10));
  out.append(digits.rbegin(), digits.rend());
}

// LLVM 14's LanguageLowerBound (Dwarf.def): the default array lower bound,
// 1 in the languages below, 0 in the other languages DWARF 5 defines and in
// RenderScript and Delphi, none for the rest.
std::optional<unsigned> languageLowerBound(uint64_t lang) {
  static constexpr uint64_t kFromOne[] = {
      dw::DW_LANG_Ada83,    dw::DW_LANG_Cobol74,   dw::DW_LANG_Cobol85,   dw::DW_LANG_Fortran77, dw::DW_LANG_Fortran90,
      dw::DW_LANG_Pascal83, dw::DW_LANG_Modula2,   dw::DW_LANG_Fortran95, dw::DW_LANG_PLI,       dw::DW_LANG_Modula3,
      dw::DW_LANG_Julia,    dw::DW_LANG_Fortran03, dw::DW_LANG_Fortran08,
  };
  if (std::find(std::begin(kFromOne), std::end(kFromOne), lang) != std::end(kFromOne)) return 1u;
  if ((lang >= dw::DW_LANG_C89 && lang <= dw::DW_LANG_BLISS) || lang == dw::DW_LANG_GOOGLE_RenderScript ||
      lang == dw::DW_LANG_BORLAND_Delphi)
    return 0u;
  return std::nullopt;
}

// llvm::DWARFTypePrinter (LLVM 14, DWARFDie.cpp) over our flat DIE array.
class TypePrinter {
 public:
  TypePrinter(const Dwarf& d, std::string& out, const SubtreeEnds* ends) : d_(d), out_(out), ends_(ends) {}

  void appendQualifiedName(const Die* D) {
    if (!enter()) return;
    if (D) appendScopes(parent(D));
    appendUnqualifiedName(D);
    leave();
  }

 private:
  const Dwarf& d_;
  std::string& out_;
  const SubtreeEnds* ends_;
  bool word_ = true;
  bool endedWithTemplate_ = false;
  bool cut_ = false;
  int depth_ = 0;
  int steps_ = 0;
  static constexpr int kMaxDepth = 64;
  // Scopes and types reference each other: a crafted file can make the walk
  // exponential within the depth limit, so one name gets a bounded amount of work.
  static constexpr int kMaxSteps = 4096;
  // The innermost scopes a name spells (more: kScopesLeftOut in their place).
  static constexpr size_t kMaxScopes = 64;
  // What stands where a name leaves scopes out, and where one is cut short.
  static constexpr std::string_view kScopesLeftOut = "(enclosing scopes left out)";
  static constexpr std::string_view kCutShort = "(name cut short)";

  bool enter() {
    if (depth_ >= kMaxDepth || steps_ >= kMaxSteps) {
      if (!cut_) out_ += kCutShort;  // said once, where the name stops
      cut_ = true;
      return false;
    }
    ++depth_;
    ++steps_;
    return true;
  }
  void leave() { --depth_; }

  const Die* parent(const Die* D) const { return D ? d_.parentOf(*D) : nullptr; }
  uint16_t tag(const Die* D) const { return D ? D->tag : 0; }
  std::optional<AttrValue> find(const Die* D, uint16_t attr) const {
    return D ? d_.attribute(*D, attr) : std::nullopt;
  }

  // DWARFDie::getAttributeValueAsReferencedDie
  const Die* resolve(const Die* D, uint16_t attr = dw::DW_AT_type) const {
    std::optional<AttrValue> v = find(D, attr);
    return v ? d_.referencedDie(*v) : nullptr;
  }

  static std::optional<uint64_t> unsignedConstant(const std::optional<AttrValue>& v) {
    if (!v || !dw::isUnsignedConstantForm(v->form)) return std::nullopt;
    return v->value;
  }
  static std::optional<int64_t> signedConstant(const std::optional<AttrValue>& v) {
    if (!v || !dw::isConstantForm(v->form)) return std::nullopt;
    switch (v->form) {
      case dw::DW_FORM_data4:
        return static_cast<int32_t>(v->value);
      case dw::DW_FORM_data2:
        return static_cast<int16_t>(v->value);
      case dw::DW_FORM_data1:
        return static_cast<int8_t>(v->value);
      case dw::DW_FORM_sdata:
        return v->svalue();
      default:
        return static_cast<int64_t>(v->value);
    }
  }
  std::optional<std::string_view> nameOf(const Die* D) const {
    std::optional<AttrValue> v = find(D, dw::DW_AT_name);
    if (!v || !v->isString()) return std::nullopt;
    return v->string();
  }

  template <class F>
  void forChildren(const Die* D, F&& f) {
    if (D) forEachChild(d_, *D, ends_, [&](const Die& c) { return f(&c); });
  }

  void appendTypeTagName(uint16_t t) {
    std::string_view s = dw::tagName(t);
    constexpr std::string_view prefix = "DW_TAG_", suffix = "_type";
    if (s.size() < prefix.size() + suffix.size() || s.substr(0, prefix.size()) != prefix ||
        s.substr(s.size() - suffix.size()) != suffix)
      return;
    out_ += s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
    out_ += ' ';
  }

  void appendArrayType(const Die* D) {
    const Die& cu = d_.dies[d_.unitOf(*D).firstDie];
    std::optional<unsigned> defaultLB;
    if (auto lang = unsignedConstant(d_.attribute(cu, dw::DW_AT_language))) defaultLB = languageLowerBound(*lang);
    forChildren(D, [&](const Die* C) {
      if (C->tag != dw::DW_TAG_subrange_type) return true;
      // Plain values + flags: std::optional here trips GCC's -Wmaybe-uninitialized.
      uint64_t lb = 0, count = 0, ub = 0;
      bool hasLB = false, hasCount = false, hasUB = false;
      if (auto l = unsignedConstant(find(C, dw::DW_AT_lower_bound))) hasLB = true, lb = *l;
      if (auto c = unsignedConstant(find(C, dw::DW_AT_count))) hasCount = true, count = *c;
      if (auto u = unsignedConstant(find(C, dw::DW_AT_upper_bound))) hasUB = true, ub = *u;
      if (defaultLB && hasLB && lb == *defaultLB) hasLB = false;
      if (!hasLB && !hasCount && !hasUB) {
        out_ += "[]";
      } else if (!hasLB && (hasCount || hasUB) && defaultLB) {
        out_ += '[';
        using u128 = unsigned __int128;
        appendDec(out_, hasCount ? u128{count} : u128{ub} - *defaultLB + 1);
        out_ += ']';
      } else {
        out_ += "[[";
        if (hasLB)
          appendDec(out_, lb);
        else
          out_ += '?';
        out_ += ", ";
        if (hasCount) {
          if (hasLB)
            appendDec(out_, static_cast<unsigned __int128>(lb) + count);
          else {
            out_ += "? + ";
            appendDec(out_, count);
          }
        } else if (hasUB) {
          appendDec(out_, static_cast<unsigned __int128>(ub) + 1);
        } else {
          out_ += '?';
        }
        out_ += ")]";
      }
      return true;
    });
    endedWithTemplate_ = false;
  }

  const Die* skipQualifiers(const Die* D) {
    for (int i = 0; D && (D->tag == dw::DW_TAG_const_type || D->tag == dw::DW_TAG_volatile_type) && i < kMaxDepth; ++i)
      D = resolve(D);
    return D;
  }

  bool needsParens(const Die* D) {
    D = skipQualifiers(D);
    return D && (D->tag == dw::DW_TAG_subroutine_type || D->tag == dw::DW_TAG_array_type);
  }

  void appendPointerLikeTypeBefore(const Die* Inner, std::string_view ptr) {
    appendQualifiedNameBefore(Inner);
    if (word_) out_ += ' ';
    if (needsParens(Inner)) out_ += '(';
    out_ += ptr;
    word_ = false;
    endedWithTemplate_ = false;
  }

  const Die* appendUnqualifiedNameBefore(const Die* D) {
    word_ = true;
    if (!D) {
      out_ += "void";
      return nullptr;
    }
    if (!enter()) return nullptr;
    const Die* inner = nullptr;
    switch (D->tag) {
      case dw::DW_TAG_pointer_type:
        inner = resolve(D);
        appendPointerLikeTypeBefore(inner, "*");
        break;
      case dw::DW_TAG_subroutine_type:
        inner = resolve(D);
        appendQualifiedNameBefore(inner);
        if (word_) out_ += ' ';
        word_ = false;
        break;
      case dw::DW_TAG_array_type:
        inner = resolve(D);
        appendQualifiedNameBefore(inner);
        break;
      case dw::DW_TAG_reference_type:
        inner = resolve(D);
        appendPointerLikeTypeBefore(inner, "&");
        break;
      case dw::DW_TAG_rvalue_reference_type:
        inner = resolve(D);
        appendPointerLikeTypeBefore(inner, "&&");
        break;
      case dw::DW_TAG_ptr_to_member_type: {
        inner = resolve(D);
        appendQualifiedNameBefore(inner);
        if (needsParens(inner))
          out_ += '(';
        else if (word_)
          out_ += ' ';
        if (const Die* cont = resolve(D, dw::DW_AT_containing_type)) {
          appendQualifiedName(cont);
          endedWithTemplate_ = false;
          out_ += "::";
        }
        out_ += '*';
        word_ = false;
        break;
      }
      case dw::DW_TAG_const_type:
      case dw::DW_TAG_volatile_type:
        appendConstVolatileQualifierBefore(D);
        break;
      case dw::DW_TAG_namespace:
        out_ += nameOf(D).value_or("(anonymous namespace)");
        break;
      case dw::DW_TAG_unspecified_type: {
        std::string_view name = nameOf(D).value_or("");
        if (name == "decltype(nullptr)") name = "std::nullptr_t";
        word_ = true;
        out_ += name;
        endedWithTemplate_ = false;
        break;
      }
      default: {
        const std::optional<std::string_view> named = nameOf(D);
        if (!named) {
          appendTypeTagName(D->tag);
          leave();
          return nullptr;
        }
        std::string_view name = *named;
        word_ = true;
        constexpr std::string_view mangledPrefix = "_STN|";
        if (name.substr(0, mangledPrefix.size()) == mangledPrefix) {
          name.remove_prefix(mangledPrefix.size());
          size_t sep = name.find('|');
          if (sep != std::string_view::npos) name = name.substr(0, sep);
        } else {
          endedWithTemplate_ = !name.empty() && name.back() == '>';
        }
        out_ += name;
        if (!name.empty() && name.back() == '>') break;
        if (!appendTemplateParameters(D, nullptr)) break;
        if (endedWithTemplate_) out_ += ' ';
        out_ += '>';
        endedWithTemplate_ = true;
        word_ = true;
        break;
      }
    }
    leave();
    return inner;
  }

  void appendUnqualifiedNameAfter(const Die* D, const Die* Inner, bool skipFirstParamIfArtificial = false) {
    if (!D) return;
    if (!enter()) return;
    switch (D->tag) {
      case dw::DW_TAG_subroutine_type:
        appendSubroutineNameAfter(D, Inner, skipFirstParamIfArtificial, false, false);
        break;
      case dw::DW_TAG_array_type:
        appendArrayType(D);
        break;
      case dw::DW_TAG_const_type:
      case dw::DW_TAG_volatile_type:
        appendConstVolatileQualifierAfter(D);
        break;
      case dw::DW_TAG_ptr_to_member_type:
      case dw::DW_TAG_reference_type:
      case dw::DW_TAG_rvalue_reference_type:
      case dw::DW_TAG_pointer_type:
        if (needsParens(Inner)) out_ += ')';
        appendUnqualifiedNameAfter(Inner, resolve(Inner), D->tag == dw::DW_TAG_ptr_to_member_type);
        break;
      default:
        break;
    }
    leave();
  }

  const Die* appendQualifiedNameBefore(const Die* D) {
    if (D) appendScopes(parent(D));
    return appendUnqualifiedNameBefore(D);
  }

  bool appendTemplateParameters(const Die* D, bool* firstParameter) {
    if (ends_ && D && !ends_->hasTemplateParameters(static_cast<uint32_t>(D - d_.dies.data()))) return false;
    bool firstValue = true;
    bool isTemplate = false;
    if (!firstParameter) firstParameter = &firstValue;
    forChildren(D, [&](const Die* C) {
      auto sep = [&] {
        if (*firstParameter)
          out_ += '<';
        else
          out_ += ", ";
        isTemplate = true;
        endedWithTemplate_ = false;
        *firstParameter = false;
      };
      if (C->tag == dw::DW_TAG_GNU_template_parameter_pack) {
        isTemplate = true;
        if (enter()) {
          appendTemplateParameters(C, firstParameter);
          leave();
        }
      }
      if (C->tag == dw::DW_TAG_template_value_parameter) {
        const Die* T = resolve(C);
        sep();
        if (tag(T) == dw::DW_TAG_enumeration_type) {
          out_ += '(';
          appendQualifiedName(T);
          out_ += ')';
          if (auto v = signedConstant(find(C, dw::DW_AT_const_value))) appendSigned(out_, *v);
          return true;
        }
        if (tag(T) == dw::DW_TAG_pointer_type) return true;
        std::optional<AttrValue> V = find(C, dw::DW_AT_const_value);
        appendTemplateValue(nameOf(T).value_or(""), signedConstant(V).value_or(0), unsignedConstant(V).value_or(0));
        return true;
      }
      if (C->tag == dw::DW_TAG_GNU_template_template_param) {
        std::optional<AttrValue> n = find(C, dw::DW_AT_GNU_template_name);
        sep();
        if (n && n->isString()) out_ += n->string();
        return true;
      }
      if (C->tag != dw::DW_TAG_template_type_parameter) return true;
      std::optional<AttrValue> typeAttr = find(C, dw::DW_AT_type);
      sep();
      appendQualifiedName(typeAttr ? resolve(C) : nullptr);
      return true;
    });
    if (isTemplate && *firstParameter && firstParameter == &firstValue) {
      out_ += '<';
      endedWithTemplate_ = false;
    }
    return isTemplate;
  }

  // A template value argument of the type named `name`, as LLVM spells it:
  // `true`, `(short)3`, `5UL`, `'a'`, `(unsigned char)'\\x80'`; nothing for
  // another type.
  void appendTemplateValue(std::string_view name, int64_t sv, uint64_t uv) {
    struct Integer {
      std::string_view type, cast, suffix;
      bool isSigned;
    };
    static constexpr Integer kIntegers[] = {
        {"short", "(short)", "", true},
        {"unsigned short", "(unsigned short)", "", true},
        {"int", "", "", true},
        {"long", "", "L", true},
        {"long long", "", "LL", true},
        {"unsigned int", "", "U", false},
        {"unsigned long", "", "UL", false},
        {"unsigned long long", "", "ULL", false},
    };
    if (name == "bool") {
      out_ += uv ? "true" : "false";
      return;
    }
    for (const Integer& i : kIntegers) {
      if (name != i.type) continue;
      out_ += i.cast;
      if (i.isSigned)
        appendSigned(out_, sv);
      else
        appendDec(out_, uv);
      out_ += i.suffix;
      return;
    }
    const bool isQualifiedChar = name == "unsigned char" || name == "signed char";
    if (name != "char" && !isQualifiedChar) return;
    if (isQualifiedChar) {
      out_ += '(';
      out_ += name;
      out_ += ')';
    }
    static constexpr std::pair<int64_t, std::string_view> kEscapes[] = {
        {'\\', "'\\\\'"}, {'\'', "'\\''"}, {'\a', "'\\a'"}, {'\b', "'\\b'"}, {'\f', "'\\f'"},
        {'\n', "'\\n'"},  {'\r', "'\\r'"}, {'\t', "'\\t'"}, {'\v', "'\\v'"},
    };
    for (const auto& [c, escape] : kEscapes)
      if (sv == c) {
        out_ += escape;
        return;
      }
    int64_t val = sv;
    if ((val & ~0xFFll) == ~0xFFll) val &= 0xFF;
    if (val < 127 && val >= 32) {
      out_ += '\'';
      out_ += static_cast<char>(val);
      out_ += '\'';
    } else {
      int width = val < 256 ? 2 : val <= 0xFFFF ? 4 : 8;
      out_ += val < 256 ? "'\\x" : val <= 0xFFFF ? "'\\u" : "'\\U";
      appendHexDigits(out_, static_cast<uint64_t>(val) & (width == 8 ? 0xffffffffull : ~0ull), width);
      out_ += '\'';
    }
  }

  void decomposeConstVolatile(const Die* N, const Die*& T, const Die*& C, const Die*& V) {
    (N->tag == dw::DW_TAG_const_type ? C : V) = N;
    T = resolve(N);
    if (T) {
      if (T->tag == dw::DW_TAG_const_type) {
        C = T;
        T = resolve(T);
      } else if (T->tag == dw::DW_TAG_volatile_type) {
        V = T;
        T = resolve(T);
      }
    }
  }

  void appendConstVolatileQualifierAfter(const Die* N) {
    const Die *C = nullptr, *V = nullptr, *T = nullptr;
    decomposeConstVolatile(N, T, C, V);
    if (T && T->tag == dw::DW_TAG_subroutine_type)
      appendSubroutineNameAfter(T, resolve(T), false, C != nullptr, V != nullptr);
    else
      appendUnqualifiedNameAfter(T, resolve(T));
  }

  void appendConstVolatileQualifierBefore(const Die* N) {
    const Die *C = nullptr, *V = nullptr, *T = nullptr;
    decomposeConstVolatile(N, T, C, V);
    bool subroutine = T && T->tag == dw::DW_TAG_subroutine_type;
    const Die* A = T;
    for (int i = 0; A && A->tag == dw::DW_TAG_array_type && i < kMaxDepth; ++i) A = resolve(A);
    bool leading =
        (!A || (A->tag != dw::DW_TAG_pointer_type && A->tag != dw::DW_TAG_ptr_to_member_type)) && !subroutine;
    if (leading) {
      if (C) out_ += "const ";
      if (V) out_ += "volatile ";
    }
    appendQualifiedNameBefore(T);
    if (!leading && !subroutine) {
      word_ = true;
      if (C) out_ += "const";
      if (V) {
        if (C) out_ += ' ';
        out_ += "volatile";
      }
    }
  }

  void appendUnqualifiedName(const Die* D) {
    const Die* inner = appendUnqualifiedNameBefore(D);
    appendUnqualifiedNameAfter(D, inner);
  }

  void appendSubroutineNameAfter(const Die* D, const Die* Inner, bool skipFirstParamIfArtificial, bool isConst,
                                 bool isVolatile) {
    const Die* firstParamIfArtificial = nullptr;
    out_ += '(';
    endedWithTemplate_ = false;
    bool first = true, realFirst = true, stopped = false;
    forChildren(D, [&](const Die* P) {
      if (P->tag != dw::DW_TAG_formal_parameter && P->tag != dw::DW_TAG_unspecified_parameters) {
        stopped = true;
        return false;
      }
      const Die* T = resolve(P);
      if (skipFirstParamIfArtificial && realFirst && find(P, dw::DW_AT_artificial)) {
        firstParamIfArtificial = T;
        realFirst = false;
        return true;
      }
      if (!first) out_ += ", ";
      first = false;
      if (P->tag == dw::DW_TAG_unspecified_parameters)
        out_ += "...";
      else
        appendQualifiedName(T);
      return true;
    });
    if (stopped) return;  // LLVM returns early here, without the ')'
    endedWithTemplate_ = false;
    out_ += ')';
    if (firstParamIfArtificial && firstParamIfArtificial->tag == dw::DW_TAG_pointer_type) {
      auto cvStep = [&](const Die* cv) -> const Die* {
        if (const Die* u = resolve(cv)) {
          isConst |= u->tag == dw::DW_TAG_const_type;
          isVolatile |= u->tag == dw::DW_TAG_volatile_type;
          return u;
        }
        return nullptr;
      };
      if (const Die* cv = cvStep(firstParamIfArtificial)) cvStep(cv);
    }
    if (auto cc = unsignedConstant(find(D, dw::DW_AT_calling_convention))) {
      // The vendor calling conventions llvm-dwarfdump spells as attributes.
      static constexpr std::pair<uint64_t, std::string_view> kConventions[] = {
        {0x41, "__attribute__((stdcall))"},  // DW_CC_BORLAND_stdcall
        {0x42, "__attribute__((pascal))"},  // DW_CC_BORLAND_pascal
        {0x43, "__attribute__((fastcall))"},  // DW_CC_BORLAND_msfastcall
        {0x46, "__attribute__((thiscall))"},  // DW_CC_BORLAND_thiscall
        {0xc0, "__attribute__((vectorcall))"},  // DW_CC_LLVM_vectorcall
        {0xc1, "__attribute__((ms_abi))"},  // DW_CC_LLVM_Win64
        {0xc2, "__attribute__((sysv_abi))"},  // DW_CC_LLVM_X86_64SysV
        {0xc3, "__attribute__((pcs(\"aapcs\")))"},  // DW_CC_LLVM_AAPCS
        {0xc4, "__attribute__((pcs(\"aapcs-vfp\")))"},
        {0xc5, "__attribute__((intel_ocl_bicc))"},
        {0xc8, "__attribute__((swiftcall))"},  // DW_CC_LLVM_Swift
        {0xc9, "__attribute__((preserve_most))"},
        {0xca, "__attribute__((preserve_all))"},
        {0xcb, "__attribute__((regcall))"},
      };
      for (const auto& [code, attribute] : kConventions)
        if (*cc == code) out_ += " " + std::string(attribute);
    }
    if (isConst) out_ += " const";
    if (isVolatile) out_ += " volatile";
    if (find(D, dw::DW_AT_reference)) out_ += " &";
    if (find(D, dw::DW_AT_rvalue_reference)) out_ += " &&";
    appendUnqualifiedNameAfter(Inner, resolve(Inner));
  }

  static bool endsScopes(const Die* D) {
    const uint16_t t = D ? D->tag : 0;
    return D && (t == dw::DW_TAG_compile_unit || t == dw::DW_TAG_type_unit || t == dw::DW_TAG_skeleton_unit ||
                 t == dw::DW_TAG_subprogram || t == dw::DW_TAG_lexical_block);
  }

  // `D` and the scopes around it up to the unit (or a function: its local
  // types are named as from inside it), outermost first, each followed by
  // "::". A type nested deeper than kMaxScopes spells its innermost scopes
  // after kScopesLeftOut: found in kMaxScopes steps, where walking to the
  // unit made every name of a type nested n deep cost n.
  void appendScopes(const Die* D) {
    if (!enter()) return;
    std::vector<const Die*> chain;  // innermost first
    bool leftOut = false;
    for (const Die* s = D; !endsScopes(s); s = parent(s)) {
      work::step(work::qualifiedName);
      if (chain.size() == kMaxScopes) {
        leftOut = true;
        break;
      }
      chain.push_back(s);
      if (!s || !parent(s)) break;
    }
    if (leftOut) {
      out_ += kScopesLeftOut;
      out_ += "::";
    }
    for (auto s = chain.rbegin(); s != chain.rend(); ++s) {
      appendUnqualifiedName(*s);
      out_ += "::";
    }
    leave();
  }
};

}  // namespace

void appendTypeName(const Dwarf& dwarf, const Die* die, std::string& out, const SubtreeEnds* ends) {
  TypePrinter(dwarf, out, ends).appendQualifiedName(die);
}

std::string typeName(const Dwarf& dwarf, const Die* die, const SubtreeEnds* ends) {
  std::string out;
  appendTypeName(dwarf, die, out, ends);
  return out;
}

}  // namespace ptxdwarf::view
