// A small, bounds-checked reader for ELF64 little-endian files (cubins).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ptxdwarf::testsupport {

struct ElfSection {
  std::string name;
  uint32_t type = 0;  // sh_type
  std::vector<uint8_t> bytes;
};

// Every section of an ELF64 little-endian file by name. SHT_NOBITS sections map
// to an empty vector. A name that occurs more than once (ptxas 13 writes an empty
// `.debug_info` header before the real one when the PTX has an empty
// `.section .debug_info { }` block first) maps to the concatenation of those
// sections in header order. Returns nullopt (and sets *error when given) on any
// malformed or truncated file.
std::optional<std::map<std::string, std::vector<uint8_t>>> readElfSections(const std::string& path,
                                                                           std::string* error);

// Every section in header order (index 0 excluded), duplicates kept.
std::optional<std::vector<ElfSection>> readElfSectionList(const std::string& path, std::string* error);

// From bytes already in memory.
std::optional<std::vector<ElfSection>> parseElfSectionList(std::span<const uint8_t> file, std::string* error);
std::optional<std::map<std::string, std::vector<uint8_t>>> parseElfSections(std::span<const uint8_t> file,
                                                                            std::string* error);

}  // namespace ptxdwarf::testsupport
