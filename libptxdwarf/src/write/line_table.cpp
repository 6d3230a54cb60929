#include "ptxdwarf/write/line_table.h"

#include <charconv>
#include <cstring>
#include <string>

namespace ptxdwarf::write {

namespace {

std::string describe(SourcePos p) {
  return std::to_string(p.file) + " " + std::to_string(p.line) + " " + std::to_string(p.column);
}

std::string optionalNumber(std::optional<uint64_t> v) { return v ? std::to_string(*v) : std::string("none"); }

// What a `.file` string cannot hold: ptxas reads the path up to the next `"`,
// and a line break (or any control character) would end the directive.
void checkPath(std::string_view path) {
  if (path.empty()) throw BuildError("a .file path cannot be empty");
  for (char c : path)
    if (c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw BuildError("the path '" + std::string(path) +
                       "' cannot be written in a PTX .file string (it has a '\"' or a control character)");
}

}  // namespace

// ---- FileTable ---------------------------------------------------------------

unsigned FileTable::add(std::string_view path, std::optional<uint64_t> timestamp, std::optional<uint64_t> size) {
  if (std::optional<unsigned> id = find(path)) {
    SourceFile& f = files_[*id - 1];
    auto merge = [&](std::optional<uint64_t>& have, std::optional<uint64_t> given, const char* what) {
      if (!given) return;
      if (have && *have != *given)
        throw BuildError("file '" + f.path + "' (id " + std::to_string(*id) + ") already has " + what + " " +
                         optionalNumber(have) + ", not " + std::to_string(*given));
      have = given;
    };
    merge(f.timestamp, timestamp, "timestamp");
    merge(f.size, size, "size");
    return *id;
  }
  checkPath(path);
  files_.push_back({std::string(path), timestamp, size});
  unsigned id = static_cast<unsigned>(files_.size());
  ids_.emplace(std::string(path), id);
  return id;
}

std::optional<unsigned> FileTable::find(std::string_view path) const {
  auto it = ids_.find(std::string(path));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

const SourceFile& FileTable::file(unsigned id) const {
  if (!contains(id))
    throw BuildError("file id " + std::to_string(id) + " is not in the file table (it has " +
                     std::to_string(files_.size()) + " files, ids 1.." + std::to_string(files_.size()) + ")");
  return files_[id - 1];
}

void FileTable::write(std::string& out) const {
  for (size_t k = 0; k < files_.size(); ++k) {
    const SourceFile& f = files_[k];
    out += ".file\t";
    out += std::to_string(k + 1);
    out += " \"";
    out += f.path;
    out += '"';
    if (f.timestamp || f.size) {
      out += ", ";
      out += std::to_string(f.timestamp.value_or(0));
      if (f.size) {
        out += ", ";
        out += std::to_string(*f.size);
      }
    }
    out += '\n';
  }
}

// ---- Labels --------------------------------------------------------------------

Labels::Function Labels::function() {
  std::string n = std::to_string(functions_++);
  return {prefix_ + "func_begin" + n, prefix_ + "func_end" + n};
}

std::string Labels::temporary() { return prefix_ + "tmp" + std::to_string(temporaries_++); }

std::string Labels::string() { return prefix_ + "info_string" + std::to_string(strings_++); }

// ---- LineEmitter -----------------------------------------------------------------

LineEmitter::LineEmitter(const FileTable& files, Labels& labels, LineOptions options)
    : files_(files), labels_(labels), options_(options) {
  strings_.name = ".debug_str";
}

void LineEmitter::beginFunction() {
  used_.clear();
  usedLog_.clear();
  logged_ = 0;
  current_.reset();
}

const std::string& LineEmitter::stringLabel(std::string_view function) {
  auto it = stringIds_.find(std::string(function));
  if (it != stringIds_.end()) return stringLabels_[it->second];
  if (function.find('\0') != std::string_view::npos)
    throw BuildError("an inlined function name cannot hold a NUL byte (.debug_str strings end at one)");
  uint32_t id = static_cast<uint32_t>(stringLabels_.size());
  stringLabels_.push_back(labels_.string());
  stringIds_.emplace(std::string(function), id);
  strings_.labels.push_back({stringLabels_.back(), strings_.bytes.size(), {}});
  strings_.bytes.insert(strings_.bytes.end(), function.begin(), function.end());
  strings_.bytes.push_back(0);
  return stringLabels_.back();
}

uint32_t LineEmitter::contextOf(uint32_t parent, std::string_view function, SourcePos callSite) {
  stringLabel(function);
  Context c{parent, stringIds_.at(std::string(function)), callSite};
  auto [it, added] = contextIds_.emplace(c, static_cast<uint32_t>(contexts_.size() + 1));
  if (added) contexts_.push_back(c);
  return it->second;
}

void LineEmitter::badFile(SourcePos pos, const char* role) const {
  throw BuildError(std::string(role) + " " + describe(pos) + " names file id " + std::to_string(pos.file) +
                   ", which is not in the file table (it has " + std::to_string(files_.size()) + " files)");
}

size_t LineEmitter::loc(std::string& out, SourcePos pos, std::span<const InlinedCall> inlined) {
  checkFile(pos, ".loc");
  for (const InlinedCall& call : inlined) checkFile(call.callSite, "inlined_at");
  if (!inlined.empty() && !options_.version.atLeast(7, 2)) {
    if (!options_.flattenInlined)
      throw BuildError("`.loc ... function_name, inlined_at` (inlined code of '" + inlined.back().function +
                       "') needs PTX .version 7.2 or later; this module is " + std::to_string(options_.version.major) +
                       "." + std::to_string(options_.version.minor) +
                       " (raise the version, or set LineOptions::flattenInlined to write the innermost "
                       "location alone)");
    inlined = {};
  }
  size_t written = 0;
  // The call sites, outermost first: each must have been used in its own
  // context before a `.loc` may name it in `inlined_at`.
  uint32_t context = 0;
  for (const InlinedCall& call : inlined) {
    for (; logged_ < usedLog_.size(); ++logged_) used_[usedLog_[logged_].first] = usedLog_[logged_].second;
    auto it = used_.find(call.callSite);
    if (it == used_.end() || it->second != context) {
      write(out, call.callSite, context);
      ++written;
    }
    context = contextOf(context, call.function, call.callSite);
  }
  if (current_ && current_->first == pos && current_->second == context) return written;
  write(out, pos, context);
  return written + 1;
}

void LineEmitter::write(std::string& out, SourcePos pos, uint32_t context) {
  // `\t.loc\tFILE LINE COLUMN` formatted in place and appended once: one per instruction line.
  char buf[48];
  std::memcpy(buf, "\t.loc\t", 6);
  char* p = buf + 6;
  p = std::to_chars(p, p + 10, pos.file).ptr;  // an unsigned is at most 10 digits
  *p++ = ' ';
  p = std::to_chars(p, p + 10, pos.line).ptr;
  *p++ = ' ';
  p = std::to_chars(p, p + 10, pos.column).ptr;
  if (context == 0) {
    *p++ = '\n';
    out.append(buf, static_cast<size_t>(p - buf));
  } else {
    out.append(buf, static_cast<size_t>(p - buf));
    const Context& c = contexts_[context - 1];
    out += ", function_name ";
    out += stringLabels_[c.function];
    out += ", inlined_at ";
    out += describe(c.callSite);
    out += '\n';
  }
  usedLog_.emplace_back(pos, context);
  current_ = {pos, context};
}

}  // namespace ptxdwarf::write
