// The pieces view::lookup shares between PTX and cubins (lookup_internal.h).
#include <algorithm>

#include "lookup_internal.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/view/type_name.h"
#include "../work.h"

namespace ptxdwarf::view::detail {

// A location expression in PTX terms: registers by name, symbols as the PTX
// writes them, offsets added on. DW_OP_deref and DW_OP_stack_value apply to
// all that comes before them ("*(%rd1+8)", "value %r1"): their fronts are
// kept apart and put before the rest once at the end, so an expression of
// many of them is spelled in as many steps as it has characters, not one
// copy of the text so far per operation.
std::string expressionText(const read::Expression& e) {
  std::string out;
  std::vector<std::string_view> fronts;  // in the order applied: the last goes outermost
  auto append = [&](std::string_view text) {
    work::step(work::locationText, text.size());
    out += text;
  };
  for (const read::Operation& op : e.ops) {
    const auto operand = [&](int i) { return std::to_string(op.operands[i]); };
    const auto signedOperand = [&](int i) {
      const auto v = static_cast<int64_t>(op.operands[i]);
      return (v >= 0 ? "+" : "") + std::to_string(v);
    };
    switch (op.op) {
      case dw::DW_OP_regx:
        if (auto reg = cuda::unpackRegister(op.operands[0])) append(*reg);
        else append("DW_OP_regx " + operand(0));
        break;
      case dw::DW_OP_bregx:
        if (auto reg = cuda::unpackRegister(op.operands[0])) append("[" + *reg + signedOperand(1) + "]");
        else append("DW_OP_bregx " + operand(0) + " " + signedOperand(1));
        break;
      case dw::DW_OP_addr:
        append(op.reloc ? op.reloc->expression() : hex(op.operands[0]));
        break;
      case dw::DW_OP_plus_uconst: append("+" + operand(0)); break;
      case dw::DW_OP_fbreg: append("frame_base" + signedOperand(0)); break;
      case dw::DW_OP_deref:
        fronts.push_back("*(");
        append(")");
        break;
      case dw::DW_OP_stack_value: fronts.push_back("value "); break;
      case dw::DW_OP_piece: append(" [" + operand(0) + " bytes]; "); break;
      case dw::DW_OP_call_frame_cfa: append("CFA"); break;
      default: {
        std::string_view name = dw::opName(op.op);
        append(name.empty() ? "DW_OP_" + std::to_string(op.op) : std::string(name));
        if (op.op >= dw::DW_OP_reg0 && op.op <= dw::DW_OP_reg31) break;
        if (op.op >= dw::DW_OP_lit0 && op.op <= dw::DW_OP_lit31) break;
        if (const dw::OpInfo* info = dw::opInfo(op.op); info && info->a != dw::OperandKind::none)
          append(" " + operand(0));
      }
    }
  }
  while (out.ends_with("; ")) out.resize(out.size() - 2);
  if (!e.ok) append((out.empty() && fronts.empty() ? "" : " ") + std::string("<malformed: ") + e.error + ">");
  std::string text;
  size_t frontBytes = 0;
  for (std::string_view f : fronts) frontBytes += f.size();
  text.reserve(frontBytes + out.size());
  for (auto f = fronts.rbegin(); f != fronts.rend(); ++f) text += *f;
  text += out;
  work::step(work::locationText, text.size());
  return text;
}

bool isAbsolutePath(std::string_view p) {
  if (!p.empty() && (p[0] == '/' || p[0] == '\\')) return true;
  return p.size() >= 3 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' &&
         (p[2] == '\\' || p[2] == '/');
}

// gdb's rule for `break FILE:LINE` (compare_filenames_for_search): `search`
// names `path` when it is the whole of it, or, not being absolute itself, a
// tail of it that begins after a '/' (whole path components: "b/c.cu" names
// "/a/b/c.cu" but not "/a/xb/c.cu"; "/b/c.cu", absolute, names only itself).
bool namesPath(std::string_view path, std::string_view search) {
  if (!path.ends_with(search)) return false;
  return path.size() == search.size() ||
         (!isAbsolutePath(search) && path[path.size() - search.size() - 1] == '/');
}

std::string_view stringValue(const std::optional<read::AttrValue>& v) {
  return v && v->isString() ? v->string() : std::string_view{};
}

std::optional<uint64_t> constantValue(const std::optional<read::AttrValue>& v) {
  if (!v || !v->isConstant() || v->reloc) return std::nullopt;
  return v->value;
}

VariableInfo describeVariable(const read::Dwarf& dwarf, const read::Die& die, const SubtreeEnds& ends) {
  VariableInfo v;
  v.name = std::string(stringValue(findRecursively(dwarf, die, {dw::DW_AT_name})));
  v.parameter = die.tag == dw::DW_TAG_formal_parameter;
  v.die = die.offset;
  v.declLine = constantValue(findRecursively(dwarf, die, {dw::DW_AT_decl_line})).value_or(0);
  v.addressClass = constantValue(findRecursively(dwarf, die, {dw::DW_AT_address_class})).value_or(0);
  if (std::optional<read::AttrValue> t = findRecursively(dwarf, die, {dw::DW_AT_type}); t && t->isReference())
    v.type = typeName(dwarf, dwarf.referencedDie(*t), &ends);
  else
    v.type = "void";
  return v;
}

std::vector<std::string_view> compDirs(const read::Dwarf& dwarf) {
  std::vector<std::string_view> dirs;
  for (const read::Unit& u : dwarf.units)
    if (u.dieCount > 0)
      if (std::string_view dir = stringValue(dwarf.attribute(dwarf.dies[u.firstDie], dw::DW_AT_comp_dir)); !dir.empty())
        dirs.push_back(dir);
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  return dirs;
}

}  // namespace ptxdwarf::view::detail
