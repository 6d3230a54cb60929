// `ptxdump diff`: see diff.h for what is compared and how lines are spelled.
//
// Two passes over the DIE trees, both with explicit work lists (a DIE tree may be
// 100 000 levels deep):
//  1. matching: children of matched DIEs are paired by their path step, then the
//     leftovers of one tag are paired when their other attributes mostly agree;
//  2. reporting: a depth-first walk over the matched pairs in the old file's
//     order, comparing attributes (references through the matching) and listing
//     the unmatched subtrees.
// Paths are materialized only for lines that are printed.
#include "diff.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "commands.h"
#include "dump_util.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/demangle.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/lines.h"

namespace ptxdump {

namespace dw = ptxdwarf::dw;
using ptxdwarf::Relocation;
using ptxdwarf::ptx::Module;
using ptxdwarf::read::AttrValue;
using ptxdwarf::read::Die;
using ptxdwarf::read::Dwarf;
using ptxdwarf::read::kNone;
using ptxdwarf::read::Unit;

std::string DiffLine::text() const {
  std::string s;
  s += kind == Kind::added ? '+' : kind == Kind::removed ? '-' : '~';
  s += ' ';
  switch (subject) {
    case Subject::die:
      s += path;
      if (descendants) {
        s += " (and ";
        detail::appendDec(s, descendants);
        s += descendants == 1 ? " descendant)" : " descendants)";
      }
      break;
    case Subject::attribute:
      s += path;
      s += ": ";
      s += attribute;
      s += ' ';
      if (kind == Kind::changed) {
        s += before;
        s += " -> ";
        s += after;
      } else {
        s += kind == Kind::added ? after : before;
      }
      break;
    case Subject::order:
      s += path;
      s += ": moved ";
      s += before;
      s += " -> ";
      s += after;
      break;
    case Subject::pubname:
      if (kind == Kind::changed) {
        s += "pubnames[\"";
        detail::appendEscaped(s, path);
        s += "\"]: ";
        s += before;
        s += " -> ";
        s += after;
      } else {
        s += "pubnames: \"";
        detail::appendEscaped(s, path);
        s += '"';
      }
      break;
    case Subject::arange:
      s += "aranges: ";
      s += kind == Kind::added ? after : before;
      break;
    case Subject::lineRow:
      s += "line ";
      s += path;
      s += ": ";
      if (kind == Kind::changed) {
        s += before;
        s += " -> ";
        s += after;
      } else {
        s += kind == Kind::added ? after : before;
      }
      break;
    case Subject::lineFile:
      s += "file \"";
      s += kind == Kind::added ? after : before;
      s += '"';
      break;
  }
  return s;
}

DiffSummary summarize(const std::vector<DiffLine>& lines) {
  DiffSummary sum;
  std::unordered_set<std::string_view> changed;
  for (const DiffLine& l : lines) {
    switch (l.subject) {
      case DiffLine::Subject::die:
        (l.kind == DiffLine::Kind::added ? sum.added : sum.removed)++;
        break;
      case DiffLine::Subject::attribute:
      case DiffLine::Subject::order:
        changed.insert(l.path);
        break;
      case DiffLine::Subject::pubname:
      case DiffLine::Subject::arange:
        ++sum.names;
        break;
      case DiffLine::Subject::lineRow:
      case DiffLine::Subject::lineFile:
        ++sum.lines;
        break;
    }
  }
  sum.changed = changed.size();
  return sum;
}

std::string summaryText(const DiffSummary& s) {
  std::string out;
  detail::appendDec(out, s.changed);
  out += s.changed == 1 ? " DIE changed, " : " DIEs changed, ";
  detail::appendDec(out, s.added);
  out += " added, ";
  detail::appendDec(out, s.removed);
  out += " removed";
  if (s.names) {
    out += ", ";
    detail::appendDec(out, s.names);
    out += s.names == 1 ? " name-table entry different" : " name-table entries different";
  }
  if (s.lines) {
    out += ", ";
    detail::appendDec(out, s.lines);
    out += s.lines == 1 ? " line-table entry different" : " line-table entries different";
  }
  return out;
}

namespace {

constexpr size_t kMaxPathSteps = 64;
constexpr size_t kPathEnds = 16;  // steps kept at each end of a shortened path
constexpr size_t kPairScan = 64;  // right-hand candidates tried per leftover DIE

bool isSkipped(uint16_t attr) { return attr == dw::DW_AT_sibling; }
// Lines for what only one of two sorted lists holds (entries pair off one to one): removed
// (only in `before`) and added (only in `after`), in sorted order.
void diffSortedLists(const std::vector<std::string>& before, const std::vector<std::string>& after,
                     DiffLine::Subject subject, std::vector<DiffLine>& lines) {
  for (size_t i = 0, j = 0; i < before.size() || j < after.size();) {
    DiffLine line;
    line.subject = subject;
    if (j == after.size() || (i < before.size() && before[i] < after[j])) {
      line.kind = DiffLine::Kind::removed;
      line.before = before[i++];
    } else if (i == before.size() || after[j] < before[i]) {
      line.kind = DiffLine::Kind::added;
      line.after = after[j++];
    } else {
      ++i, ++j;
      continue;
    }
    lines.push_back(std::move(line));
  }
}

bool isNameAttr(uint16_t attr) {
  return attr == dw::DW_AT_name || attr == dw::DW_AT_linkage_name || attr == dw::DW_AT_MIPS_linkage_name;
}

bool isUnsignedConstant(uint16_t form) {
  switch (form) {
    case dw::DW_FORM_data1:
    case dw::DW_FORM_data2:
    case dw::DW_FORM_data4:
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
      return true;
    default:
      return false;
  }
}

// One file's DWARF, indexed for the diff.
struct Side {
  const Module& module;
  const Dwarf& d;
  detail::Renderer renderer;
  std::vector<uint32_t> childBegin;  // children of DIE i: kids[childBegin[i] .. childBegin[i+1])
  std::vector<uint32_t> kids;
  std::vector<uint32_t> roots;     // DIEs without a parent (normally one per unit)
  std::vector<std::string> step;   // per DIE; empty for NULL entries
  std::vector<uint32_t> match;     // per DIE: the matched DIE on the other side, or kNone
  std::vector<uint32_t> position;  // per DIE: index among its parent's children

  Side(const Module& m, const Dwarf& dwarf) : module(m), d(dwarf), renderer(m, dwarf) {
    const size_t n = d.dies.size();
    std::vector<uint32_t> count(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      const Die& die = d.dies[i];
      if (die.isNull()) continue;
      if (die.parent == kNone || die.parent >= n)
        roots.push_back(static_cast<uint32_t>(i));
      else
        ++count[die.parent];
    }
    childBegin.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i) childBegin[i + 1] = childBegin[i] + count[i];
    kids.resize(childBegin[n]);
    std::vector<uint32_t> fill(childBegin.begin(), childBegin.end() - 1);
    for (size_t i = 0; i < n; ++i) {
      const Die& die = d.dies[i];
      if (die.isNull() || die.parent == kNone || die.parent >= n) continue;
      kids[fill[die.parent]++] = static_cast<uint32_t>(i);
    }
    step.resize(n);
    match.assign(n, kNone);
    position.assign(n, 0);
    for (size_t i = 0; i < n; ++i) nameGroup(childrenOf(static_cast<uint32_t>(i)));
    nameGroup(roots);
  }

  // kNone stands for the virtual parent of the roots.
  std::span<const uint32_t> childrenOf(uint32_t die) const {
    if (die == kNone) return roots;
    return std::span<const uint32_t>(kids).subspan(childBegin[die], childBegin[die + 1] - childBegin[die]);
  }
  uint32_t parentOf(uint32_t die) const {
    uint32_t p = d.dies[die].parent;
    return p < d.dies.size() ? p : kNone;
  }

  std::string_view stepName(const Die& die) const {
    std::string_view n = d.name(die);
    return n.empty() ? d.linkageName(die) : n;
  }

  static void appendTag(std::string& out, uint16_t tag) {
    std::string t;
    detail::appendTagName(t, tag);
    std::string_view v = t;
    if (v.starts_with("DW_TAG_")) v.remove_prefix(7);
    out += v;
  }

  // Steps for one sibling group: tag[name], tag[name#k] for duplicates, tag[#k] unnamed.
  void nameGroup(std::span<const uint32_t> group) {
    if (group.empty()) return;
    std::unordered_map<std::string, uint32_t> seen;
    std::string key;
    for (size_t k = 0; k < group.size(); ++k) {
      uint32_t i = group[k];
      const Die& die = d.dies[i];
      position[i] = static_cast<uint32_t>(k);
      std::string_view name = stepName(die);
      key.clear();
      appendTag(key, die.tag);
      key += '\0';
      key += name;
      uint32_t dup = seen[key]++;
      std::string& s = step[i];
      appendTag(s, die.tag);
      s += '[';
      // Names are the producer's bytes: escaped as the dump escapes them, so a
      // newline or a terminal escape sequence cannot forge or hide diff lines.
      detail::appendEscaped(s, name);
      if (name.empty() || dup) {
        s += '#';
        detail::appendDec(s, dup);
      }
      s += ']';
    }
  }

  // The path of `die`, shortened in the middle when it is very deep.
  std::string path(uint32_t die) const {
    std::vector<uint32_t> chain;
    for (uint32_t i = die; i != kNone; i = parentOf(i)) chain.push_back(i);
    std::string out;
    size_t n = chain.size();
    for (size_t k = 0; k < n; ++k) {
      if (n > kMaxPathSteps && k == kPathEnds) {
        out += "/...(";
        detail::appendDec(out, n - 2 * kPathEnds);
        out += " steps)...";
        k = n - kPathEnds - 1;
        continue;
      }
      if (k) out += '/';
      out += step[chain[n - 1 - k]];
    }
    return out;
  }

  uint64_t descendants(uint32_t die) const {
    uint64_t count = 0;
    const Die& root = d.dies[die];
    const uint64_t unitEnd = d.unitOf(root).end;
    for (size_t j = die + 1; j < d.dies.size(); ++j) {
      const Die& x = d.dies[j];
      if (x.offset >= unitEnd || x.depth <= root.depth) break;
      if (!x.isNull()) ++count;
    }
    return count;
  }

  uint32_t dieIndex(const Die* die) const { return die ? static_cast<uint32_t>(die - d.dies.data()) : kNone; }

  // ---- values ----

  // A location list by its entries, as written (no base address applied):
  // "[begin, end): expr; base X; ...".
  void locationList(std::string& out, const Unit& unit, const AttrValue& v) const {
    uint64_t offset = 0;
    if (!renderer.locOffset(v, offset) || !d.loc) {
      out += "<no location list at ";
      if (v.reloc)
        detail::appendReloc(out, *v.reloc);
      else
        detail::appendHex(out, v.value);
      out += '>';
      return;
    }
    detail::LocListReader list;
    bool ok = list.read(d.loc, unit.addressSize, offset);
    bool first = true;
    for (const detail::LocEntryView e : list.entries()) {
      if (e.kind == detail::LocEntryView::endOfList) break;
      if (!first) out += "; ";
      first = false;
      if (e.kind == detail::LocEntryView::baseAddress) {
        out += "base ";
        detail::Renderer::address(out, e.end, e.endReloc, unit.addressSize);
        continue;
      }
      out += '[';
      detail::Renderer::address(out, e.begin, e.beginReloc, unit.addressSize);
      out += ", ";
      detail::Renderer::address(out, e.end, e.endReloc, unit.addressSize);
      out += "): ";
      renderer.expression(out, e.expr, d.loc, e.exprOffset, unit.addressSize);
    }
    if (first) out += "<empty list>";
    if (!ok) out += first ? " <truncated>" : "; <truncated>";
  }

  // The form-independent spelling of a value. A resolved reference sets `ref` to
  // the target DIE and spells its path (its step only when `brief`).
  void value(std::string& out, const Die& die, const AttrValue& v, uint32_t& ref, bool brief) const {
    ref = kNone;
    const Unit& unit = d.unitOf(die);
    if (v.isReference()) {
      if (v.reloc) {
        detail::appendReloc(out, *v.reloc);
        return;
      }
      if (const Die* t = d.dieAt(v.value)) {
        ref = dieIndex(t);
        out += brief ? step[ref] : path(ref);
      } else {
        out += "<invalid reference ";
        detail::appendHex(out, v.value);
        out += '>';
      }
      return;
    }
    if (detail::Renderer::isLocationList(v)) {
      if (brief) {  // entries decide equality, not where the list lives
        out += "<location list>";
        return;
      }
      locationList(out, unit, v);
      return;
    }
    if (detail::Renderer::isLocationExpr(v)) {
      renderer.expression(out, v.block(), d.info, v.value, unit.addressSize);
      return;
    }
    if (v.form == dw::DW_FORM_string || v.form == dw::DW_FORM_strp) {
      if (v.form == dw::DW_FORM_strp && v.string().empty() && v.reloc &&
          (v.reloc->symbol != ".debug_str" || v.reloc->isDifference())) {
        detail::appendReloc(out, *v.reloc);
        return;
      }
      out += '"';
      detail::appendEscaped(out, v.string());
      out += '"';
      return;
    }
    if (v.reloc) {
      detail::appendReloc(out, *v.reloc);
      return;
    }
    switch (v.form) {
      case dw::DW_FORM_flag_present:
        out += "true";
        return;
      case dw::DW_FORM_flag:
        out += v.value ? "true" : "false";
        return;
      case dw::DW_FORM_addr:
        detail::appendHex(out, v.value, unit.addressSize * 2);
        return;
      case dw::DW_FORM_sdata:
        detail::appendSigned(out, v.svalue());
        return;
      case dw::DW_FORM_exprloc:
      case dw::DW_FORM_block:
      case dw::DW_FORM_block1:
      case dw::DW_FORM_block2:
      case dw::DW_FORM_block4: {
        out += '<';
        for (size_t i = 0; i < v.block().size(); ++i) {
          if (i) out += ' ';
          static constexpr char hex[] = "0123456789abcdef";
          out += hex[v.block()[i] >> 4];
          out += hex[v.block()[i] & 15];
        }
        out += '>';
        return;
      }
      default:
        break;
    }
    if (isUnsignedConstant(v.form)) {
      if (v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) {
        std::string path;
        if (renderer.fileName(path, unit, v.value)) {
          out += '"';
          detail::appendEscaped(out, path);
          out += '"';
          return;
        }
      }
      std::string_view named = dw::attributeValueName(v.name, v.value);
      if (!named.empty()) {
        out += named;
        return;
      }
      if (v.name == dw::DW_AT_address_class) {
        std::string_view cls = ptxdwarf::cuda::addressClassName(v.value);
        if (!cls.empty()) {
          out += cls;
          out += " (";
          detail::appendDec(out, v.value);
          out += ')';
          return;
        }
      }
      detail::appendDec(out, v.value);
      return;
    }
    // sec_offset (not a location), ref_sig8, anything else: the raw number.
    detail::appendHex(out, v.value);
  }

  // "attr=value" keys of the attributes other than names, for pairing renamed DIEs.
  std::vector<std::string> signature(uint32_t die) const {
    std::vector<std::string> sig;
    const Die& x = d.dies[die];
    for (const AttrValue& v : d.attributes(x)) {
      if (isSkipped(v.name) || isNameAttr(v.name)) continue;
      std::string s;
      detail::appendDec(s, v.name);
      s += '=';
      uint32_t ref;
      value(s, x, v, ref, true);
      sig.push_back(std::move(s));
    }
    std::sort(sig.begin(), sig.end());
    return sig;
  }
};

bool similar(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t common = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j])
      ++common, ++i, ++j;
    else if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return common * 2 >= std::max(a.size(), b.size());
}

// Pairs the children of every matched pair, breadth first from the roots.
void matchTrees(Side& L, Side& R) {
  // With one unit DIE on each side the unit step is its tag alone, so that a
  // renamed unit still matches.
  if (L.roots.size() == 1 && R.roots.size() == 1 && L.d.dies[L.roots[0]].tag == R.d.dies[R.roots[0]].tag) {
    for (Side* s : {&L, &R}) {
      std::string& st = s->step[s->roots[0]];
      st.clear();
      Side::appendTag(st, s->d.dies[s->roots[0]].tag);
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> work{{kNone, kNone}};
  std::unordered_map<std::string_view, uint32_t> byStep;
  std::vector<uint32_t> leftL, leftR;
  while (!work.empty()) {
    auto [l, r] = work.back();
    work.pop_back();
    std::span<const uint32_t> lk = L.childrenOf(l), rk = R.childrenOf(r);
    if (lk.empty() || rk.empty()) continue;
    byStep.clear();
    for (uint32_t c : rk) byStep.emplace(R.step[c], c);
    leftL.clear();
    for (uint32_t c : lk) {
      auto it = byStep.find(L.step[c]);
      if (it != byStep.end() && R.match[it->second] == kNone) {
        L.match[c] = it->second;
        R.match[it->second] = c;
        work.emplace_back(c, it->second);
      } else {
        leftL.push_back(c);
      }
    }
    if (leftL.empty()) continue;
    leftR.clear();
    for (uint32_t c : rk)
      if (R.match[c] == kNone) leftR.push_back(c);
    if (leftR.empty()) continue;
    // Leftovers of one tag, in order, when their other attributes mostly agree.
    std::vector<std::vector<std::string>> sigR(leftR.size());
    std::vector<char> sigDone(leftR.size(), 0);
    size_t start = 0;
    for (uint32_t c : leftL) {
      std::vector<std::string> sigL;
      bool haveSigL = false;
      size_t tried = 0;
      for (size_t j = start; j < leftR.size() && tried < kPairScan; ++j) {
        uint32_t cand = leftR[j];
        if (R.match[cand] != kNone || R.d.dies[cand].tag != L.d.dies[c].tag) continue;
        ++tried;
        if (!haveSigL) sigL = L.signature(c), haveSigL = true;
        if (!sigDone[j]) sigR[j] = R.signature(cand), sigDone[j] = 1;
        if (!similar(sigL, sigR[j])) continue;
        L.match[c] = cand;
        R.match[cand] = c;
        work.emplace_back(c, cand);
        while (start < leftR.size() && R.match[leftR[start]] != kNone) ++start;
        break;
      }
    }
  }
}

// Indices (into `seq`) of one longest strictly increasing subsequence.
std::vector<char> longestIncreasing(const std::vector<uint32_t>& seq) {
  std::vector<size_t> tails, prev(seq.size(), SIZE_MAX);
  for (size_t i = 0; i < seq.size(); ++i) {
    auto it = std::lower_bound(tails.begin(), tails.end(), seq[i], [&](size_t t, uint32_t v) { return seq[t] < v; });
    if (it != tails.begin()) prev[i] = *(it - 1);
    if (it == tails.end())
      tails.push_back(i);
    else
      *it = i;
  }
  std::vector<char> in(seq.size(), 0);
  for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = prev[i]) in[i] = 1;
  return in;
}

class Differ {
 public:
  Differ(Side& l, Side& r, const DiffOptions& o, std::vector<DiffLine>& out) : L(l), R(r), opt(o), lines(out) {}

  void trees() {
    struct Frame {
      uint32_t l, r;
      size_t next = 0;
      std::vector<char> moved;  // per left child, with --order
    };
    std::vector<Frame> stack;
    stack.push_back({kNone, kNone, 0, orderOf(kNone)});
    while (!stack.empty()) {
      Frame& f = stack.back();
      std::span<const uint32_t> lk = L.childrenOf(f.l);
      if (f.next < lk.size()) {
        size_t k = f.next++;
        uint32_t c = lk[k];
        uint32_t m = L.match[c];
        if (m == kNone) {
          removedDie(c);
          continue;
        }
        bool moved = !f.moved.empty() && f.moved[k];
        uint32_t l = c;
        if (moved) {
          DiffLine line;
          line.kind = DiffLine::Kind::changed;
          line.subject = DiffLine::Subject::order;
          line.path = L.path(l);
          detail::appendDec(line.before, L.position[l]);
          detail::appendDec(line.after, R.position[m]);
          lines.push_back(std::move(line));
        }
        attributes(l, m);
        stack.push_back({l, m, 0, orderOf(l)});  // invalidates f
        continue;
      }
      for (uint32_t c : R.childrenOf(f.r))
        if (R.match[c] == kNone) addedDie(c);
      stack.pop_back();
    }
  }

  void pubnames() {
    struct Entry {
      std::string_view name;
      uint32_t die;
    };
    auto collect = [](const Side& s) {
      std::vector<Entry> v;
      for (const auto& set : s.d.pubnameSets)
        for (const auto& e : set.entries) {
          uint32_t die = kNone;
          if (!set.infoReloc || (set.infoReloc->symbol == ".debug_info" && !set.infoReloc->isDifference()))
            die = s.dieIndex(s.d.dieAt(set.infoOffset + e.dieOffset));
          v.push_back({e.name, die});
        }
      std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
      return v;
    };
    std::vector<Entry> a = collect(L), b = collect(R);
    auto target = [](const Side& s, uint32_t die) { return die == kNone ? std::string("<unresolved>") : s.path(die); };
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && a[i].name < b[j].name)) {
        nameLine(DiffLine::Kind::removed, a[i].name, target(L, a[i].die), {});
        ++i;
      } else if (i == a.size() || b[j].name < a[i].name) {
        nameLine(DiffLine::Kind::added, b[j].name, {}, target(R, b[j].die));
        ++j;
      } else {
        bool same = a[i].die != kNone && b[j].die != kNone ? L.match[a[i].die] == b[j].die
                                                           : target(L, a[i].die) == target(R, b[j].die);
        if (!same) nameLine(DiffLine::Kind::changed, a[i].name, target(L, a[i].die), target(R, b[j].die));
        ++i, ++j;
      }
    }
  }

  void aranges() {
    auto collect = [](const Side& s) {
      std::vector<std::string> v;
      for (const auto& set : s.d.arangeSets)
        for (const auto& r : set.ranges) {
          std::string t = "[";
          detail::Renderer::address(t, r.address, r.addressReloc, set.addressSize);
          t += ", ";
          const Relocation* a = r.addressReloc;
          const Relocation* n = r.lengthReloc;
          if (!a && !n) {
            detail::appendHex(t, r.address + r.length, set.addressSize * 2);
          } else if (a && n && n->isDifference() && !a->isDifference() && a->addend() == 0 && n->minus() == a->symbol &&
                     r.address == 0) {
            detail::appendSymbolPlus(t, n->symbol, n->addend());
          } else {
            detail::Renderer::address(t, r.address, a, set.addressSize);
            t += '+';
            if (n)
              detail::appendReloc(t, *n);
            else
              detail::appendHex(t, r.length);
          }
          t += ')';
          v.push_back(std::move(t));
        }
      std::sort(v.begin(), v.end());
      return v;
    };
    diffSortedLists(collect(L), collect(R), DiffLine::Subject::arange, lines);
  }

 private:
  Side& L;
  Side& R;
  const DiffOptions& opt;
  std::vector<DiffLine>& lines;

  std::vector<char> orderOf(uint32_t l) const {
    if (!opt.order) return {};
    std::span<const uint32_t> lk = L.childrenOf(l);
    std::vector<uint32_t> seq;
    std::vector<size_t> where;
    for (size_t k = 0; k < lk.size(); ++k)
      if (L.match[lk[k]] != kNone) {
        seq.push_back(R.position[L.match[lk[k]]]);
        where.push_back(k);
      }
    std::vector<char> in = longestIncreasing(seq);
    std::vector<char> moved(lk.size(), 0);
    bool any = false;
    for (size_t i = 0; i < seq.size(); ++i)
      if (!in[i]) moved[where[i]] = 1, any = true;
    if (!any) return {};
    return moved;
  }

  void nameLine(DiffLine::Kind kind, std::string_view name, std::string before, std::string after) {
    DiffLine line;
    line.kind = kind;
    line.subject = DiffLine::Subject::pubname;
    line.path = std::string(name);
    line.before = std::move(before);
    line.after = std::move(after);
    lines.push_back(std::move(line));
  }

  void removedDie(uint32_t l) {
    DiffLine line;
    line.kind = DiffLine::Kind::removed;
    line.subject = DiffLine::Subject::die;
    line.path = L.path(l);
    line.descendants = L.descendants(l);
    lines.push_back(std::move(line));
  }

  // An added DIE is addressed through its matched ancestor's old path.
  std::string newPath(uint32_t r) const {
    std::vector<uint32_t> chain;
    uint32_t i = r;
    for (; i != kNone && R.match[i] == kNone; i = R.parentOf(i)) chain.push_back(i);
    std::string out = i == kNone ? std::string() : L.path(R.match[i]);
    for (size_t k = chain.size(); k-- > 0;) {
      if (!out.empty()) out += '/';
      out += R.step[chain[k]];
    }
    return out;
  }

  void addedDie(uint32_t r) {
    DiffLine line;
    line.kind = DiffLine::Kind::added;
    line.subject = DiffLine::Subject::die;
    line.path = newPath(r);
    line.descendants = R.descendants(r);
    lines.push_back(std::move(line));
  }

  struct AttrRef {
    uint16_t name;
    uint32_t occurrence;  // among attributes of this name in the DIE
    AttrValue v;           // decoded: the model keeps no values to point at
  };

  static std::vector<AttrRef> attrList(const Side& s, const Die& die) {
    std::vector<AttrRef> v;
    for (const AttrValue& a : s.d.attributes(die)) {
      if (isSkipped(a.name)) continue;
      uint32_t occ = 0;
      for (const AttrRef& x : v) occ += x.name == a.name;
      v.push_back({a.name, occ, a});
    }
    return v;
  }

  void attributes(uint32_t l, uint32_t r) {
    const Die& dl = L.d.dies[l];
    const Die& dr = R.d.dies[r];
    std::vector<AttrRef> la = attrList(L, dl), ra = attrList(R, dr);
    std::vector<char> used(ra.size(), 0);
    std::string path;  // computed on the first difference
    auto emit = [&](DiffLine::Kind kind, uint16_t name, std::string before, std::string after) {
      if (path.empty()) path = L.path(l);
      DiffLine line;
      line.kind = kind;
      line.subject = DiffLine::Subject::attribute;
      line.path = path;
      detail::appendAttrName(line.attribute, name);
      line.before = std::move(before);
      line.after = std::move(after);
      lines.push_back(std::move(line));
    };
    for (const AttrRef& a : la) {
      size_t j = 0;
      while (j < ra.size() && (ra[j].name != a.name || ra[j].occurrence != a.occurrence)) ++j;
      std::string before;
      uint32_t refL;
      L.value(before, dl, a.v, refL, false);
      if (j == ra.size()) {
        emit(DiffLine::Kind::removed, a.name, std::move(before), {});
        continue;
      }
      used[j] = 1;
      std::string after;
      uint32_t refR;
      R.value(after, dr, ra[j].v, refR, false);
      bool same = refL != kNone && refR != kNone ? L.match[refL] == refR : before == after;
      if (!same) emit(DiffLine::Kind::changed, a.name, std::move(before), std::move(after));
    }
    for (size_t j = 0; j < ra.size(); ++j) {
      if (used[j]) continue;
      std::string after;
      uint32_t ref;
      R.value(after, dr, ra[j].v, ref, false);
      emit(DiffLine::Kind::added, ra[j].name, {}, std::move(after));
    }
  }
};

// ---- line tables (`.file` / `.loc`) ----
//
// A row's code position is its function and the ordinal of the instruction it
// applies to within the function (the PTX analogue of the address ptxas gives
// it), so that code moved down the file by an unrelated change compares equal.
// Several rows at one position are told apart by their order (`#k`).

struct PositionedRow {
  std::string_view function;  // empty at module scope
  uint32_t offset = 0;        // instruction ordinal in the function
  uint32_t order = 0;         // among the rows at this position
  std::string where;          // the position (escaped), with its inline stack
};

// Frames of a row's inline stack compared: as many as `dump --debug-line` shows.
constexpr size_t kInlineFramesCompared = 64;

void appendSourcePosition(std::string& out, const ptxdwarf::ptx::LineTable& t, const ptxdwarf::ptx::SourcePosition& p) {
  if (const ptxdwarf::ptx::LineFile* f = t.file(p.file)) {
    detail::appendEscaped(out, ptxdwarf::ptx::pathOf(t, *f));
  } else {
    out += "<no .file ";
    detail::appendDec(out, p.file);
    out += '>';
  }
  out += ':';
  detail::appendDec(out, p.line);
  out += ':';
  detail::appendDec(out, p.col);
}

std::string rowWhere(const Module& m, const ptxdwarf::ptx::LineTable& t, uint32_t row) {
  const ptxdwarf::ptx::LocRecord& r = m.locs[t.rows[row].loc];
  std::string out;
  appendSourcePosition(out, t, r.position());
  if (!r.isInlined()) return out;
  for (uint32_t frameRow : t.inlineStack(row, kInlineFramesCompared)) {
    const ptxdwarf::ptx::LocRecord& frame = m.locs[t.rows[frameRow].loc];
    if (!frame.isInlined()) break;  // the outermost row: the function itself
    const ptxdwarf::ptx::LocInlining& in = m.inliningOf(frame);
    out += " inlined: ";
    if (const auto& name = t.functionNames[in.functionName]) detail::appendEscaped(out, ptxdwarf::demangle(*name));
    else detail::appendEscaped(out, m.locFunctionNames[in.functionName]);
    out += " at ";
    appendSourcePosition(out, t, in.inlinedAt);
  }
  return out;
}

std::vector<PositionedRow> positionedRows(const Module& m, const ptxdwarf::ptx::LineTable& t) {
  std::vector<PositionedRow> rows;
  rows.reserve(t.rows.size());
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    const ptxdwarf::ptx::LocRecord& r = m.locs[t.rows[i].loc];
    PositionedRow p;
    if (r.function >= 0) {
      const ptxdwarf::ptx::Function& f = m.functions[static_cast<size_t>(r.function)];
      p.function = f.name;
      if (r.instruction != ptxdwarf::ptx::kNoIndex && r.instruction >= f.firstInstruction)
        p.offset = r.instruction - f.firstInstruction;
    }
    p.where = rowWhere(m, t, i);
    rows.push_back(std::move(p));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PositionedRow& a, const PositionedRow& b) {
    return a.function != b.function ? a.function < b.function : a.offset < b.offset;
  });
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].function == rows[i - 1].function && rows[i].offset == rows[i - 1].offset)
      rows[i].order = rows[i - 1].order + 1;
  return rows;
}

std::string rowKey(const PositionedRow& r) {
  std::string key;
  if (r.function.empty()) key = "(module scope)";
  else detail::appendEscaped(key, r.function);
  key += '+';
  detail::appendDec(key, r.offset);
  if (r.order) {
    key += '#';
    detail::appendDec(key, r.order);
  }
  return key;
}

void diffLineTables(const Module& a, const Module& b, std::vector<DiffLine>& lines) {
  const ptxdwarf::ptx::LineTable ta = ptxdwarf::ptx::buildLineTable(a), tb = ptxdwarf::ptx::buildLineTable(b);
  auto paths = [](const ptxdwarf::ptx::LineTable& t) {
    std::vector<std::string> v;
    v.reserve(t.files.size());
    for (const ptxdwarf::ptx::LineFile& f : t.files) v.push_back(ptxdwarf::escaped(ptxdwarf::ptx::pathOf(t, f)));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  diffSortedLists(paths(ta), paths(tb), DiffLine::Subject::lineFile, lines);
  const std::vector<PositionedRow> ra = positionedRows(a, ta), rb = positionedRows(b, tb);
  auto before = [](const PositionedRow& x, const PositionedRow& y) {
    if (x.function != y.function) return x.function < y.function;
    return x.offset != y.offset ? x.offset < y.offset : x.order < y.order;
  };
  for (size_t i = 0, j = 0; i < ra.size() || j < rb.size();) {
    DiffLine line;
    line.subject = DiffLine::Subject::lineRow;
    if (j == rb.size() || (i < ra.size() && before(ra[i], rb[j]))) {
      line.kind = DiffLine::Kind::removed;
      line.path = rowKey(ra[i]);
      line.before = ra[i++].where;
    } else if (i == ra.size() || before(rb[j], ra[i])) {
      line.kind = DiffLine::Kind::added;
      line.path = rowKey(rb[j]);
      line.after = rb[j++].where;
    } else {
      if (ra[i].where == rb[j].where) {
        ++i, ++j;
        continue;
      }
      line.kind = DiffLine::Kind::changed;
      line.path = rowKey(ra[i]);
      line.before = ra[i++].where;
      line.after = rb[j++].where;
    }
    lines.push_back(std::move(line));
  }
}

void appendDiagnostics(const ptxdwarf::Diagnostics& diags, const std::string& path, std::string& err) {
  for (const ptxdwarf::Diagnostic& d : diags.items) {
    err += d.format(path);
    if (!d.section.empty() && d.offset >= 0) {
      err += " (";
      err += d.section;
      err += '+';
      detail::appendHex(err, static_cast<uint64_t>(d.offset));
      err += ')';
    }
    err += '\n';
  }
}

}  // namespace

std::vector<DiffLine> diffDwarf(const Module& oldModule, const Dwarf& oldDwarf, const Module& newModule,
                                const Dwarf& newDwarf, const DiffOptions& options) {
  Side L(oldModule, oldDwarf), R(newModule, newDwarf);
  matchTrees(L, R);
  std::vector<DiffLine> lines;
  Differ differ(L, R, options, lines);
  differ.trees();
  differ.pubnames();
  differ.aranges();
  diffLineTables(oldModule, newModule, lines);
  return lines;
}

std::vector<DiffLine> diffDwarf(const Module& oldModule, const Dwarf& oldDwarf, const Module& newModule,
                                const Dwarf& newDwarf) {
  return diffDwarf(oldModule, oldDwarf, newModule, newDwarf, DiffOptions{});
}

int runDiff(const DiffRequest& request, std::string& out, std::string& err) {
  // The DWARF of each side, its files for DW_AT_decl_file, its bodies for the line table: no symbols.
  std::optional<LoadedFile> a = loadFile(request.oldFile, err, {.nameIndex = false});
  std::optional<LoadedFile> b = loadFile(request.newFile, err, {.nameIndex = false});
  if (!a || !b) return kUnreadable;
  bool broken = false;
  for (const LoadedFile* f : {&*a, &*b})
    if (f->dwarf.diagnostics.hasErrors()) {
      appendDiagnostics(f->dwarf.diagnostics, f->path, err);
      broken = true;
    }
  if (broken) return kUnreadable;
  std::vector<DiffLine> lines = diffDwarf(a->read.module, a->dwarf, b->read.module, b->dwarf, request.options);
  for (const DiffLine& line : lines) {
    out += line.text();
    out += '\n';
  }
  out += summaryText(summarize(lines));
  out += '\n';
  return lines.empty() ? kOk : kProblems;
}

}  // namespace ptxdump
