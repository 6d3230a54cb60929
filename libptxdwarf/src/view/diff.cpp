// The DIE trees' and name tables' comparison: see view/diff.h.
//
// Two passes over the DIE trees, both with explicit work lists (a DIE tree may be
// 100 000 levels deep):
//  1. matching: children of matched DIEs are paired by their path step, then the
//     leftovers of one tag are paired when their other attributes mostly agree;
//  2. reporting: a depth-first walk over the matched pairs in the old file's
//     order, comparing attributes (references through the matching, symbols by
//     what they stand for) and listing the unmatched subtrees.
// Paths and the values as shown are made only for lines that are reported.
#include "ptxdwarf/view/diff.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <unordered_map>

#include "diff_detail.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/render.h"

namespace ptxdwarf::view {

namespace {

using diffdetail::Spelling;
using ptx::Module;
using read::AttrValue;
using read::Die;
using read::Dwarf;
using read::kNone;

constexpr size_t kMaxPathSteps = 64;
constexpr size_t kPathEnds = 16;  // steps kept at each end of a shortened path
constexpr size_t kPairScan = 64;  // right-hand candidates tried per leftover DIE

bool isSkipped(uint16_t attr) { return attr == dw::DW_AT_sibling; }

bool isNameAttr(uint16_t attr) {
  return attr == dw::DW_AT_name || attr == dw::DW_AT_linkage_name || attr == dw::DW_AT_MIPS_linkage_name;
}

// One file's DWARF, indexed for the diff.
struct Side {
  const Module& module;
  const Dwarf& d;
  diffdetail::SymbolMeanings symbols;
  // The values spelled with their symbols by meaning, in each Spelling.
  print::Renderer bySource, byInstruction, shown;
  std::vector<uint32_t> childBegin;  // children of DIE i: kids[childBegin[i] .. childBegin[i+1])
  std::vector<uint32_t> kids;
  std::vector<uint32_t> roots;     // DIEs without a parent (normally one per unit)
  std::vector<std::string> step;   // per DIE; empty for NULL entries
  std::vector<uint32_t> match;     // per DIE: the matched DIE on the other side, or kNone
  std::vector<uint32_t> position;  // per DIE: index among its parent's children
  // per DIE: its step names it by its place among siblings (`#k`: unnamed, or
  // a name its siblings of its tag share), not by what it is
  std::vector<char> positional;

  Side(const Module& m, const Dwarf& dwarf)
      : module(m), d(dwarf), symbols(m, dwarf), bySource(m, dwarf), byInstruction(m, dwarf), shown(m, dwarf) {
    auto spelledAs = [this](Spelling spelling) {
      return [this, spelling](std::string& out, const Relocation& r) { symbols.append(out, r, spelling); };
    };
    bySource.spellSymbolsWith(spelledAs(Spelling::bySource));
    byInstruction.spellSymbolsWith(spelledAs(Spelling::byInstruction));
    shown.spellSymbolsWith(spelledAs(Spelling::shown));
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
    positional.assign(n, 0);
    for (size_t i = 0; i < n; ++i) nameGroup(childrenOf(static_cast<uint32_t>(i)));
    nameGroup(roots);
  }
  Side(const Side&) = delete;  // the renderers refer to `symbols`
  Side& operator=(const Side&) = delete;

  const print::Renderer& renderer(Spelling spelling) const {
    return spelling == Spelling::bySource ? bySource : spelling == Spelling::byInstruction ? byInstruction : shown;
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
    print::appendTagName(t, tag);
    std::string_view v = t;
    if (v.starts_with("DW_TAG_")) v.remove_prefix(7);
    out += v;
  }

  // Steps for one sibling group: tag[name], tag[name#k] for duplicates, tag[#k] unnamed.
  void nameGroup(std::span<const uint32_t> group) {
    if (group.empty()) return;
    std::unordered_map<std::string, uint32_t> seen;  // by tag and name
    std::string key;
    auto keyOf = [&](const Die& die) -> const std::string& {
      key.clear();
      appendTag(key, die.tag);
      key += '\0';
      key += stepName(die);
      return key;
    };
    for (size_t k = 0; k < group.size(); ++k) {
      uint32_t i = group[k];
      const Die& die = d.dies[i];
      position[i] = static_cast<uint32_t>(k);
      std::string_view name = stepName(die);
      uint32_t dup = seen[keyOf(die)]++;
      std::string& s = step[i];
      appendTag(s, die.tag);
      s += '[';
      // Names are the producer's bytes: escaped as the dump escapes them, so a
      // newline or a terminal escape sequence cannot forge or hide diff lines.
      appendEscaped(s, name);
      if (name.empty() || dup) {
        s += '#';
        appendDec(s, dup);
      }
      s += ']';
    }
    for (uint32_t i : group) positional[i] = stepName(d.dies[i]).empty() || seen[keyOf(d.dies[i])] > 1;
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
        appendDec(out, n - 2 * kPathEnds);
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

  // The value spelled; a reference that resolves is spelled as its target's
  // path (its step only when `brief`) and returns the target.
  // `brief`: a location list as `<location list>` (its entries are compared
  // where values are compared, not where DIEs are paired).
  uint32_t value(std::string& out, const Die& die, const AttrValue& v, Spelling spelling, bool brief) const {
    if (const Die* target = v.isReference() ? d.referencedDie(v) : nullptr) {
      const uint32_t ref = dieIndex(target);
      out += brief ? step[ref] : path(ref);
      return ref;
    }
    if (brief && print::Renderer::isLocationList(v))
      out += "<location list>";
    else
      renderer(spelling).plainValue(out, die, v);
    return kNone;
  }

  // "attr=value" keys of the attributes other than names, for pairing renamed DIEs.
  std::vector<std::string> signature(uint32_t die) const {
    std::vector<std::string> sig;
    const Die& x = d.dies[die];
    for (const AttrValue& v : d.attributes(x)) {
      if (isSkipped(v.name) || isNameAttr(v.name)) continue;
      std::string s;
      appendDec(s, v.name);
      s += '=';
      value(s, x, v, Spelling::bySource, true);
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

// Pairs the left-over children `leftL` with unmatched ones of `rk` of their
// tag, in order, where their other attributes mostly agree.
void pairSimilar(Side& L, Side& R, const std::vector<uint32_t>& leftL, std::span<const uint32_t> rk,
                 std::vector<std::pair<uint32_t, uint32_t>>& work) {
  std::vector<uint32_t> leftR;
  for (uint32_t c : rk)
    if (R.match[c] == kNone) leftR.push_back(c);
  if (leftR.empty()) return;
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
  std::vector<uint32_t> leftL;
  while (!work.empty()) {
    auto [l, r] = work.back();
    work.pop_back();
    std::span<const uint32_t> lk = L.childrenOf(l), rk = R.childrenOf(r);
    if (lk.empty() || rk.empty()) continue;
    byStep.clear();
    for (uint32_t c : rk) byStep.emplace(R.step[c], c);
    // Children their steps name by what they are; those named by their place
    // (`#k`) are paired by their attributes first, so that one added in the
    // middle does not shift every later one, then by step.
    leftL.clear();
    for (uint32_t c : lk) {
      auto it = byStep.find(L.step[c]);
      if (it != byStep.end() && R.match[it->second] == kNone && !L.positional[c] && !R.positional[it->second]) {
        L.match[c] = it->second;
        R.match[it->second] = c;
        work.emplace_back(c, it->second);
      } else {
        leftL.push_back(c);
      }
    }
    if (leftL.empty()) continue;
    pairSimilar(L, R, leftL, rk, work);
    for (uint32_t c : leftL) {
      if (L.match[c] != kNone) continue;
      auto it = byStep.find(L.step[c]);
      if (it == byStep.end() || R.match[it->second] != kNone) continue;
      L.match[c] = it->second;
      R.match[it->second] = c;
      work.emplace_back(c, it->second);
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
        if (!f.moved.empty() && f.moved[k]) movedDie(c, m);
        attributes(c, m);
        stack.push_back({c, m, 0, orderOf(c)});  // invalidates f
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
      for (const auto& set : s.d.pubnameSets) {
        // The unit's offset, `.debug_info+N` or a number.
        const std::optional<uint64_t> unit = s.d.offsetIn(".debug_info", set.infoOffset, set.infoReloc);
        for (const auto& e : set.entries)
          v.push_back({e.name, unit ? s.dieIndex(s.d.dieAt(*unit + e.dieOffset)) : kNone});
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
      std::vector<diffdetail::ListEntry> v;
      for (const auto& set : s.d.arangeSets)
        for (const auto& r : set.ranges) {
          diffdetail::ListEntry e;
          s.bySource.plainRange(e.key, set, r);
          s.byInstruction.plainRange(e.alternative, set, r);
          s.shown.plainRange(e.shown, set, r);
          v.push_back(std::move(e));
        }
      std::sort(v.begin(), v.end());
      return v;
    };
    diffdetail::diffSortedLists(collect(L), collect(R), DiffLine::Subject::arange, lines);
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
    lines.push_back({.kind = kind,
                     .subject = DiffLine::Subject::pubname,
                     .path = std::string(name),
                     .before = std::move(before),
                     .after = std::move(after)});
  }

  void movedDie(uint32_t l, uint32_t r) {
    lines.push_back({.kind = DiffLine::Kind::changed,
                     .subject = DiffLine::Subject::order,
                     .path = L.path(l),
                     .before = std::to_string(L.position[l]),
                     .after = std::to_string(R.position[r])});
  }

  void removedDie(uint32_t l) {
    lines.push_back({.kind = DiffLine::Kind::removed,
                     .subject = DiffLine::Subject::die,
                     .path = L.path(l),
                     .descendants = L.descendants(l)});
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
    lines.push_back({.kind = DiffLine::Kind::added,
                     .subject = DiffLine::Subject::die,
                     .path = newPath(r),
                     .descendants = R.descendants(r)});
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

  std::string shown(const Side& s, const Die& die, const AttrValue& v) const {
    std::string out;
    s.value(out, die, v, Spelling::shown, false);
    return out;
  }

  // Two values of one attribute: references by their matched targets, the rest
  // by meaning, code labels by their source places or else by their instructions.
  bool same(const Die& dl, const AttrValue& vl, const Die& dr, const AttrValue& vr) const {
    std::string before, after;
    const uint32_t refL = L.value(before, dl, vl, Spelling::bySource, false);
    const uint32_t refR = R.value(after, dr, vr, Spelling::bySource, false);
    if (refL != kNone && refR != kNone) return L.match[refL] == refR;
    if (before == after) return true;
    before.clear(), after.clear();
    L.value(before, dl, vl, Spelling::byInstruction, false);
    R.value(after, dr, vr, Spelling::byInstruction, false);
    return before == after;
  }

  void attributes(uint32_t l, uint32_t r) {
    const Die& dl = L.d.dies[l];
    const Die& dr = R.d.dies[r];
    std::vector<AttrRef> la = attrList(L, dl), ra = attrList(R, dr);
    std::vector<char> used(ra.size(), 0);
    std::string path;  // computed on the first difference
    auto emit = [&](DiffLine::Kind kind, uint16_t name, std::string before, std::string after) {
      if (path.empty()) path = L.path(l);
      DiffLine line{.kind = kind,
                    .subject = DiffLine::Subject::attribute,
                    .path = path,
                    .before = std::move(before),
                    .after = std::move(after)};
      print::appendAttrName(line.attribute, name);
      lines.push_back(std::move(line));
    };
    for (const AttrRef& a : la) {
      size_t j = 0;
      while (j < ra.size() && (ra[j].name != a.name || ra[j].occurrence != a.occurrence)) ++j;
      if (j == ra.size()) {
        emit(DiffLine::Kind::removed, a.name, shown(L, dl, a.v), {});
        continue;
      }
      used[j] = 1;
      if (!same(dl, a.v, dr, ra[j].v)) emit(DiffLine::Kind::changed, a.name, shown(L, dl, a.v), shown(R, dr, ra[j].v));
    }
    for (size_t j = 0; j < ra.size(); ++j)
      if (!used[j]) emit(DiffLine::Kind::added, ra[j].name, {}, shown(R, dr, ra[j].v));
  }
};

}  // namespace

std::vector<DiffLine> diff(const Module& oldModule, const Dwarf& oldDwarf, const Module& newModule,
                           const Dwarf& newDwarf, const DiffOptions& options) {
  Side L(oldModule, oldDwarf), R(newModule, newDwarf);
  matchTrees(L, R);
  std::vector<DiffLine> lines;
  Differ differ(L, R, options, lines);
  differ.trees();
  differ.pubnames();
  differ.aranges();
  diffdetail::diffLineTables(oldModule, newModule, lines);
  return lines;
}

}  // namespace ptxdwarf::view
