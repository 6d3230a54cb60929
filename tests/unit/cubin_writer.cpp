#include "cubin_writer.h"

#include "ptxdwarf/cuda.h"

namespace ptxdwarf::testcubin {

void put(Bytes& b, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void putString(Bytes& b, std::string_view s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}

void putUleb(Bytes& b, uint64_t v) {
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    b.push_back(static_cast<uint8_t>(byte | (v ? 0x80 : 0)));
  } while (v);
}

Bytes abbreviations() {
  return {1, 0x11, 1, 0x03, 0x08, 0, 0,
          2, 0x2e, 1, 0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0, 0,
          3, 0x34, 0, 0x03, 0x08, 0x02, 0x0a, 0, 0,
          4, 0x0b, 1, 0x11, 0x01, 0x12, 0x06, 0, 0,
          5, 0x34, 0, 0x03, 0x08, 0x02, 0x06, 0, 0,
          0};
}

void putRegisterLocation(Bytes& b, std::string_view reg) {
  Bytes expr{0x90};
  putUleb(expr, *cuda::packRegister(reg));
  b.push_back(static_cast<uint8_t>(expr.size()));
  b.insert(b.end(), expr.begin(), expr.end());
}

std::string cubinOf(const std::vector<Function>& functions) {
  ElfWriter w;
  std::vector<uint32_t> code;
  for (const Function& f : functions) code.push_back(w.add({".text." + f.name, elf::SHT_PROGBITS, Bytes(f.size, 0), 0, 0, 4}));
  const uint32_t symtab = w.addSectionSymbols(code);
  // .debug_info, .debug_loc
  Bytes body, loc;
  std::vector<Rela> infoRelocations, locRelocations;
  body.push_back(1);
  putString(body, "a.cu");
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    body.push_back(2);
    putString(body, f.name);
    infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1)});
    put(body, 0, 8);
    put(body, f.size, 4);
    for (const auto& [name, reg] : f.variables) {
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
    }
    if (!f.listRanges.empty()) {
      body.push_back(5);
      putString(body, "y");
      put(body, loc.size(), 4);
      for (const auto& [begin, end, reg] : f.listRanges) {
        locRelocations.push_back({loc.size(), static_cast<uint32_t>(i + 1), begin});
        put(loc, 0, 8);
        locRelocations.push_back({loc.size(), static_cast<uint32_t>(i + 1), end});
        put(loc, 0, 8);
        Bytes expr;
        putRegisterLocation(expr, reg);
        put(loc, expr.size() - 1, 2);
        loc.insert(loc.end(), expr.begin() + 1, expr.end());  // the block's bytes, not its length
      }
      put(loc, 0, 8);  // the list's end: two zero addresses
      put(loc, 0, 8);
    }
    for (size_t k = 0; k < f.nested.size(); ++k) {
      const auto& [name, reg] = f.nested[k];
      body.push_back(4);
      infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1), static_cast<int64_t>(0x10 * k)});
      put(body, 0, 8);
      put(body, f.size - 0x10 * k, 4);
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
    }
    for (size_t k = 0; k < f.nested.size(); ++k) body.push_back(0);
    for (size_t k = 0; k < f.siblings.size(); ++k) {
      const auto& [name, reg] = f.siblings[k];
      body.push_back(4);
      infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1), static_cast<int64_t>(0x10 * k)});
      put(body, 0, 8);
      put(body, 0x10, 4);
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
      body.push_back(0);
    }
    body.push_back(0);
  }
  body.push_back(0);
  Bytes info;
  put(info, 7 + body.size(), 4);
  put(info, 2, 2);
  put(info, 0, 4);
  info.push_back(8);
  info.insert(info.end(), body.begin(), body.end());
  w.add({".debug_abbrev", elf::SHT_PROGBITS, abbreviations()});
  const uint32_t infoIndex = w.add({".debug_info", elf::SHT_PROGBITS, info});
  w.addRela(infoIndex, symtab, infoRelocations);
  if (!loc.empty()) w.addRela(w.add({".debug_loc", elf::SHT_PROGBITS, loc}), symtab, locRelocations);
  // .debug_str: the inlined function's name at 0 (the line table's base).
  w.add({".debug_str", elf::SHT_PROGBITS, Bytes{'g', 0}});
  // .debug_line: version 2, one file, NVIDIA's names base; a sequence per function.
  Bytes header{1, 1, 0xfb, 14, 10, 0, 1, 1, 1, 1, 0, 0, 0, 1};
  header.push_back(0);  // no include directory
  putString(header, "a.cu");
  header.insert(header.end(), {0, 0, 0});
  header.push_back(0);
  put(header, 0, 4);
  Bytes program;
  std::vector<Rela> lineRelocations;
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    if (f.rows.empty()) continue;
    program.insert(program.end(), {0, 9, 2});
    lineRelocations.push_back({10 + header.size() + program.size(), static_cast<uint32_t>(i + 1)});
    put(program, 0, 8);
    uint32_t line = 1;
    for (size_t r = 0; r < f.rows.size(); ++r) {
      const auto [want, context] = f.rows[r];
      if (context) {
        Bytes op{0x90};
        putUleb(op, context);
        putUleb(op, 0);
        program.push_back(0);
        putUleb(program, op.size());
        program.insert(program.end(), op.begin(), op.end());
      }
      if (r) program.insert(program.end(), {2, 0x10});
      program.push_back(3);
      Bytes advance;
      int64_t by = int64_t{want} - int64_t{line};
      for (bool more = true; more;) {  // SLEB128
        uint8_t byte = by & 0x7f;
        by >>= 7;
        more = !((by == 0 && !(byte & 0x40)) || (by == -1 && (byte & 0x40)));
        program.push_back(static_cast<uint8_t>(byte | (more ? 0x80 : 0)));
      }
      line = want;
      program.push_back(1);
    }
    program.insert(program.end(), {2, 0x10, 0, 1, 1});
  }
  Bytes lineSection;
  put(lineSection, 2 + 4 + header.size() + program.size(), 4);
  put(lineSection, 2, 2);
  put(lineSection, header.size(), 4);
  lineSection.insert(lineSection.end(), header.begin(), header.end());
  lineSection.insert(lineSection.end(), program.begin(), program.end());
  const uint32_t lineIndex = w.add({".debug_line", elf::SHT_PROGBITS, lineSection});
  w.addRela(lineIndex, symtab, lineRelocations);
  // .nv_debug_info_reg_sass
  Bytes map;
  for (const Function& f : functions) {
    putString(map, f.name);
    put(map, f.entries.size(), 4);
    for (const Function::Entry& e : f.entries) {
      put(map, 0, 4);
      putString(map, e.reg);
      put(map, e.location, 4);
      put(map, e.start, 4);
      put(map, e.end, 4);
    }
  }
  w.add({".nv_debug_info_reg_sass", elf::SHT_PROGBITS, map});
  return w.bytes();
}

}  // namespace ptxdwarf::testcubin
