#include "dwarfdump_text.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

namespace ptxdwarf::testsupport {

std::vector<std::vector<DumpRow>> parseDebugLine(const std::string& dump, std::string* error) {
  std::map<unsigned, std::string> dirs, names;
  std::map<unsigned, unsigned> dirOf;
  std::vector<std::vector<DumpRow>> sequences(1);
  std::vector<std::tuple<unsigned, unsigned, unsigned, bool>> raw;  // line, column, file, end
  static const std::regex dirRe(R"(^include_directories\[\s*(\d+)\] = \"(.*)\"$)");
  static const std::regex fileRe(R"(^file_names\[\s*(\d+)\]:$)");
  static const std::regex nameRe(R"(^\s+name: \"(.*)\"$)");
  static const std::regex dirIndexRe(R"(^\s+dir_index: (\d+)$)");
  static const std::regex rowRe(R"(^0x[0-9a-f]{16}\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s*(.*)$)");
  std::istringstream in(dump);
  std::string line;
  unsigned currentFile = 0;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, dirRe)) {
      dirs[std::stoul(m[1])] = m[2];
    } else if (std::regex_match(line, m, fileRe)) {
      currentFile = std::stoul(m[1]);
    } else if (currentFile && std::regex_match(line, m, nameRe)) {
      names[currentFile] = m[1];
    } else if (currentFile && std::regex_match(line, m, dirIndexRe)) {
      dirOf[currentFile] = std::stoul(m[1]);
    } else if (std::regex_match(line, m, rowRe)) {
      raw.emplace_back(std::stoul(m[1]), std::stoul(m[2]), std::stoul(m[3]),
                       std::string(m[4]).find("end_sequence") != std::string::npos);
    }
  }
  for (auto [lineNo, column, file, end] : raw) {
    if (end) {
      sequences.emplace_back();
      continue;
    }
    if (!names.count(file)) {
      *error = "row names file " + std::to_string(file) + ", which the table does not have";
      return {};
    }
    unsigned dir = dirOf[file];
    std::string path = dir && dirs.count(dir) ? dirs[dir] + "/" + names[file] : names[file];
    sequences.back().emplace_back(path, lineNo, column);
  }
  sequences.pop_back();  // the empty one after the last end_sequence
  return sequences;
}

namespace {

std::string packedHex(const std::string& reg) {
  uint64_t v = 0;
  for (unsigned char c : reg) v = (v << 8) | c;
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string llvmSpelling(const std::string& line) {
  static const std::regex cls(R"(\((0x[0-9a-f]+) ADDR_[a-z_]+_space\))");
  static const std::regex reg(R"((DW_OP_b?regx) (%[A-Za-z0-9_$]+))");
  std::string s = std::regex_replace(line, cls, "($1)");
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), reg); it != std::sregex_iterator(); ++it) {
    out += s.substr(last, static_cast<size_t>(it->position(0)) - last);
    out += (*it)[1].str() + " " + packedHex((*it)[2].str());
    last = static_cast<size_t>(it->position(0) + it->length(0));
  }
  return out + s.substr(last);
}

}  // namespace ptxdwarf::testsupport
