// ptxdump: inspect DWARF embedded in PTX.
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"

namespace {

void flushStdout() {
  if (std::fflush(stdout) != 0) ptxdump::lastWriteErrno = errno;
}

int finish(int code, const std::string& out, const std::string& err) {
  ptxdump::writeTo(stdout, out);
  flushStdout();
  ptxdump::writeTo(stderr, err);
  return code;
}

// --format's value (each command accepts only the formats it has).
ptxdump::Format formatNamed(const std::string& format) {
  return format == "json"         ? ptxdump::Format::json
         : format == "json-lines" ? ptxdump::Format::jsonLines
                                  : ptxdump::Format::text;
}

void addSectionFlags(CLI::App* cmd, ptxdump::DumpOptions& s, bool& all) {
  cmd->add_flag("--debug-info", s.info, "Dump .debug_info (the default)");
  cmd->add_flag("--debug-abbrev", s.abbrev, "Dump .debug_abbrev");
  cmd->add_flag("--debug-pubnames", s.pubnames, "Dump .debug_pubnames");
  cmd->add_flag("--debug-aranges", s.aranges, "Dump .debug_aranges");
  cmd->add_flag("--debug-loc", s.loc, "Dump .debug_loc");
  cmd->add_flag("--debug-str", s.str, "Dump .debug_str");
  cmd->add_flag("--debug-line", s.line, "Dump the line table: the .file/.loc directives ptxas builds .debug_line from");
  cmd->add_flag("-a,--all", all, "Dump every debug section");
}

constexpr const char* kVerifyExe = "ptxdump-verify";

// The running executable: /proc/self/exe names the file even when ptxdump was
// found on PATH or through a symlink; argv[0] where there is no /proc.
std::filesystem::path selfPath(const char* argv0) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(argv0) : self;
}

// `ptxdump verify ARGS...` runs `ptxdump-verify ARGS...`: the oracles link libLLVM
// and libdwarf, whose loading would cost every other command ~45 MB and some
// milliseconds. The ptxdump-verify next to this executable first (the build tree
// or the install prefix, so the two match), then PATH. Returns only when neither
// could be run.
int execVerify(int argc, char** argv) {
  std::filesystem::path self = selfPath(argv[0]);
  // argv[1] ("verify") becomes the new argv[0]; argv[argc] is the null terminator.
  std::vector<char*> args(argv + 1, argv + argc + 1);
  std::fflush(stdout);  // exec discards what stdio still holds
  if (self.has_parent_path()) {
    std::string sibling = (self.parent_path() / kVerifyExe).string();
    args[0] = sibling.data();
    execv(sibling.c_str(), args.data());
  }
  args[0] = const_cast<char*>(kVerifyExe);
  execvp(kVerifyExe, args.data());
  std::fprintf(stderr,
               "ptxdump: error: verify needs ptxdump-verify (LLVM DebugInfo and libdwarf oracles), not found next to "
               "%s or on PATH\n",
               self.c_str());
  return ptxdump::kUnreadable;
}

}  // namespace

// ptxdump is a short-lived process whose reader and checker grow large
// vectors on several threads at once. Keeping freed memory in the heap for
// reuse, instead of unmapping it and mapping it again, avoids page faults
// and the address-space lock they contend for across threads. The heap
// grows 64 MB of address space at a time (nothing is mapped in until it is
// written): each growth takes that lock for writing, and a thread that
// sleeps for it while the other holds it takes milliseconds to wake on a
// virtual machine (a 20 MB nvcc -G file's check grew the heap a dozen times,
// most of them while the other thread was reading its part).
static void tuneAllocator() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
}

// A dump into a full disk is not a success: whatever a command printed, a
// failed write or flush of stdout makes the exit status 2.
static int checkStdout(int code) {
  flushStdout();
  if (!std::ferror(stdout)) return code;
  std::fprintf(stderr, "ptxdump: error: cannot write to standard output: %s\n",
               ptxdump::lastWriteErrno ? std::strerror(ptxdump::lastWriteErrno) : "write error");
  return ptxdump::kUnreadable;
}

static int run(int argc, char** argv);

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "verify") return execVerify(argc, argv);
  tuneAllocator();
  // Past a file size limit (ulimit -f) a write fails with EFBIG, which the
  // writers report, instead of the process dying half-way through an output.
  std::signal(SIGXFSZ, SIG_IGN);
  return checkStdout(run(argc, argv));
}

static int run(int argc, char** argv) {

  CLI::App app{"ptxdump: inspect the DWARF debug information embedded in PTX", "ptxdump"};
  app.footer(
      "Examples:\n"
      "  ptxdump kernel.ptx                      dump .debug_info as llvm-dwarfdump prints the cubin's\n"
      "  ptxdump check kernel.ptx                validate the DWARF against itself and the PTX\n"
      "  ptxdump extract kernel.ptx --section .debug_info -o info.bin\n"
      "  ptxdump verify kernel.ptx               compare our decode with LLVM's and libdwarf's\n"
      "  ptxdump --debug-line kernel.ptx         the .file/.loc line table, inline stacks resolved\n"
      "  ptxdump lookup kernel.ptx --at k.cu:42  what a debugger sees there: scopes, variables, locations\n"
      "  ptxdump types kernel.ptx                struct layouts: offsets, sizes, holes\n"
      "  ptxdump strip kernel.ptx -o plain.ptx   the same PTX without its debug information\n"
      "\n"
      "ptxdump SUBCOMMAND --help shows a subcommand's options. Exit: 0 fine, 1 problems found, 2 unreadable.");
  app.set_version_flag("--version", "ptxdump 0.1.0");
  app.require_subcommand(1);

  ptxdump::DumpRequest dump;
  dump.sections.info = false;
  bool all = false;
  std::string format = "text";
  CLI::App* dumpCmd = app.add_subcommand("dump", "Print debug sections in llvm-dwarfdump's layout (default command)");
  dumpCmd->add_option("files", dump.files, "PTX files ('-' for stdin)")->required();
  addSectionFlags(dumpCmd, dump.sections, all);
  dumpCmd->add_option("--format", format, "Output format: text, json (one object, DIEs nested) or json-lines (a line "
                                          "per DIE, with its parent's offset)")
      ->check(CLI::IsMember({"text", "json", "json-lines"}));
  dumpCmd->footer("Example:\n  ptxdump dump --debug-info --debug-pubnames fixtures/chapter6.ptx");
  // llvm-dwarfdump's DIE selection options, same names and meaning.
  dumpCmd->add_option("--name", dump.sections.names, "Dump only the DIEs with this name (or linkage name)");
  dumpCmd->add_flag("--ignore-case", dump.sections.ignoreCase, "--name ignores case");
  dumpCmd->add_flag("--regex", dump.sections.regex, "--name values are POSIX extended regular expressions");
  dumpCmd->add_flag("-c,--show-children", dump.sections.showChildren, "Show a selected DIE's children");
  dumpCmd->add_flag("-p,--show-parents", dump.sections.showParents, "Show a selected DIE's parents");
  dumpCmd->add_option("-r,--recurse-depth", dump.sections.recurseDepth, "Levels of children to show");
  dumpCmd->add_flag("--show-form", dump.sections.showForm, "Show the form of each attribute");
  dumpCmd->add_flag("--debug-regmap", dump.regmap,
                    "A cubin's register map (.nv_debug_info_reg_sass): PTX register -> SASS location, per PC range");
  dumpCmd->add_flag("--sass-lines", dump.sassLines, "A cubin's .nv_debug_line_sass: SASS address -> PTX line");
  dumpCmd->add_flag("--statistics", dump.statistics,
                    "llvm-dwarfdump --statistics' JSON object (scope coverage in PTX instructions)");

  ptxdump::TypesRequest types;
  std::string typesFormat = "text";
  CLI::App* typesCmd = app.add_subcommand("types", "Type layouts: members, offsets, sizes, bit fields, holes");
  typesCmd->add_option("file", types.file, "PTX file")->required();
  typesCmd->add_option("--name", types.names, "Only the type with this qualified or plain name");
  typesCmd->add_option("--format", typesFormat, "Output format")->check(CLI::IsMember({"text", "json"}));
  typesCmd->footer("Example:\n  ptxdump types fixtures/chapter6.ptx");

  ptxdump::ExtractRequest extract;
  CLI::App* extractCmd = app.add_subcommand("extract", "Write one section's bytes (symbolic operands zero-filled)");
  extractCmd->add_option("file", extract.file, "PTX file")->required();
  CLI::Option* sectionOption = extractCmd->add_option("--section", extract.section, "Section name, e.g. .debug_info");
  extractCmd->add_flag("--ptx", extract.ptx, "A cubin's embedded PTX text (.nv_debug_ptx_txt), to stdout or -o");
  extractCmd->add_option("-o,--output", extract.output, "Output file for the raw bytes ('-' for stdout)");
  extractCmd->add_flag("--relocs", extract.relocations, "Print the relocations: offset size symbol[+addend] or A-B");
  extractCmd->footer("Example:\n  ptxdump extract fixtures/chapter6.ptx --section .debug_info --relocs");

  ptxdump::CheckRequest check;
  CLI::App* checkCmd = app.add_subcommand("check", "Validate the DWARF against itself and the PTX; round-trip it");
  bool listRules = false;
  checkCmd->add_option("files", check.files, "PTX files (required unless --list-rules)");
  checkCmd->add_flag("--list-rules", listRules,
                     "List the rules: id, severity, what each checks, what ptxas does with such a fault");
  checkCmd->footer(
      "Example:\n  ptxdump check -j 2 fixtures/chapter6.ptx fixtures/variants/crlf.ptx\n"
      "  ptxdump check k.ptx --cubin k.cubin     what ptxas did to the debug information (ptxas -g k.ptx -o k.cubin)");
  checkCmd->add_flag("--werror", check.werror, "Treat warnings as errors");
  checkCmd->add_option("--cubin", check.cubin,
                       "The cubin ptxas made of the (one) PTX file: hold it against the PTX (the cubin-* rules; "
                       "a -g cubin checked alone runs them on its embedded PTX)");
  checkCmd->add_option("-j,--jobs", check.jobs, "Files checked in parallel")->check(CLI::Range(1u, 256u));
  // --sources or --sources=DIR: a flag whose value comes only after '=' (an
  // option taking an optional value would take the next file for DIR).
  std::string sourcesArg;
  CLI::Option* sourcesFlag = checkCmd->add_flag(
      "--sources{-}", sourcesArg,
      "Warn about source paths a debugger cannot open (rule source-file); =DIR looks in DIR first, as gdb's "
      "`directory DIR`");

  ptxdump::ReformatRequest reformat;
  CLI::App* reformatCmd = app.add_subcommand("reformat", "Rewrite the debug sections in another layout");
  reformatCmd->add_option("file", reformat.file, "PTX file")->required();
  reformatCmd->add_option("-o,--output", reformat.output, "Output PTX file (default: stdout)");
  reformatCmd->add_option("--style", reformat.style, "packed, one-per-line, verbose or dense")
      ->check(CLI::IsMember({"packed", "one-per-line", "verbose", "dense"}));
  reformatCmd->add_flag("--reencode", reformat.reencode,
                        "Re-encode through the canonical encoder (abbreviations re-interned, offsets recomputed)");
  reformatCmd->add_option("--remap-path", reformat.remapPaths,
                          "OLD=NEW: rewrite source paths starting with OLD (repeatable; as -ffile-prefix-map, the "
                          "last match wins)")
      ->allow_extra_args(false);  // one OLD=NEW an occurrence: the file is not taken for a second one
  reformatCmd->footer("Example:\n  ptxdump reformat fixtures/chapter6.ptx --reencode --style verbose");

  ptxdump::StripRequest strip;
  CLI::App* stripCmd = app.add_subcommand("strip", "Remove the debug information (for consumers that reject it)");
  stripCmd->add_option("file", strip.file, "PTX file")->required();
  stripCmd->add_option("-o,--output", strip.output, "Output PTX file (- for stdout); written whole or not at all");
  bool stripAllFlag = false;
  CLI::Option* stripAll = stripCmd->add_flag(
      "--all", stripAllFlag, "Every debug section, .file, .loc and `debug` of .target (the default)");
  CLI::Option* stripKeep = stripCmd->add_flag("--keep-lines", strip.keepLines,
                                              "Keep .file/.loc (and .debug_str for function_name), as -lineinfo");
  stripAll->excludes(stripKeep);
  stripCmd->footer("Example:\n  ptxdump strip fixtures/chapter6.ptx --keep-lines -o -");

  ptxdump::DiffRequest diff;
  CLI::App* diffCmd = app.add_subcommand("diff", "Semantic diff of two files' debug info (exit 0 equal, 1 different)");
  diffCmd->add_option("old", diff.oldFile, "The reference PTX file (e.g. a golden file)")->required();
  diffCmd->add_option("new", diff.newFile, "The PTX file compared with it")->required();
  diffCmd->add_flag("--order", diff.options.order, "Report children that moved among their siblings");
  diffCmd->footer("Example:\n  ptxdump diff fixtures/chapter6.ptx fixtures/faults/register_undeclared.ptx");

  ptxdump::LookupRequest lookup;
  std::string lookupFormat = "text";
  CLI::App* lookupCmd = app.add_subcommand(
      "lookup", "What a debugger sees at a place: scopes, visible variables, where each lives, types");
  lookupCmd->add_option("file", lookup.file, "PTX file or cubin")->required();
  lookupCmd->add_option("--at", lookup.at, "SOURCE:LINE (any path suffix), ptx:LINE, a function name, or on a cubin FUNCTION+0xPC")->required();
  lookupCmd->add_option("--format", lookupFormat, "Output format")->check(CLI::IsMember({"text", "json"}));
  lookupCmd->footer("Example:\n  ptxdump lookup fixtures/chapter6.ptx --at call_example.cu:8");

  ptxdump::AnnotateRequest annotate;
  CLI::App* annotateCmd =
      app.add_subcommand("annotate", "Add debug information to PTX that has none: the PTX becomes the source");
  annotateCmd->add_option("file", annotate.file, "PTX file")->required();
  annotateCmd->add_option("-o,--output", annotate.output, "Output PTX file (default: stdout)");
  annotateCmd->add_option("--source-name", annotate.sourceName, "The path `.file 1` names (default: FILE as given)");
  annotateCmd->add_flag("--keep-lines", annotate.keepLines,
                        "Keep the file's .file/.loc (a -lineinfo build) and add only the DWARF");
  annotateCmd->add_flag("--rename-registers", annotate.renameRegisters,
                        "Rename registers whose names cuda-gdb cannot read (over 8 bytes) throughout their function");
  annotateCmd->add_flag("--replace", annotate.replace,
                        "Replace the file's debug sections (and .file/.loc unless --keep-lines) instead of refusing");
  annotateCmd->add_option("-j,--jobs", annotate.jobs,
                          "Threads (1: one; default: two where the process may use two CPUs and the file is large)")
      ->check(CLI::Range(1u, 256u));
  annotateCmd->add_option("--max-growth", annotate.maxGrowth,
                          "Refuse an output over this many times the input's size (default 64; 0: no limit)");
  annotateCmd->footer("Example:\n  ptxdump annotate fixtures/annotate/dsl.ptx --rename-registers");

  // Listed in --help only: main() has already handed `verify` to ptxdump-verify.
  app.add_subcommand("verify", "Compare the decoded DWARF with LLVM's DebugInfo and libdwarf (runs ptxdump-verify)");

  // `ptxdump FILE...` means `ptxdump dump FILE...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  auto isCommandOrHelp = [&](const std::string& a) {
    if (a == "-h" || a == "--help" || a == "--version") return true;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->get_name() == a) return true;
    return false;
  };
  if (!args.empty() && !isCommandOrHelp(args[0])) args.insert(args.begin(), "dump");
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector form reversed
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ptxdump::kUnreadable;
  }

  // `-o ""` names no file: an error, not standard output (which is `-o -`).
  for (CLI::App* cmd : {extractCmd, reformatCmd, annotateCmd, stripCmd}) {
    const CLI::Option* o = cmd->get_option_no_throw("--output");
    if (cmd->parsed() && o && o->count() && o->as<std::string>().empty()) {
      std::fprintf(stderr, "ptxdump %s: error: -o: the output path is empty (write '-' for standard output)\n",
                   cmd->get_name().c_str());
      return ptxdump::kUnreadable;
    }
  }

  std::string out, err;
  int code = ptxdump::kUnreadable;
  if (dumpCmd->parsed()) {
    ptxdump::DumpOptions& s = dump.sections;
    if (all) s.info = s.abbrev = s.pubnames = s.aranges = s.loc = s.str = s.line = true;
    if (!s.info && !s.abbrev && !s.pubnames && !s.aranges && !s.loc && !s.str && !s.line) {
      s.info = true;
      dump.defaultSections = true;
    }
    dump.format = formatNamed(format);
    dump.stream = stdout;
    code = ptxdump::runDump(dump, out, err);
  } else if (typesCmd->parsed()) {
    types.format = formatNamed(typesFormat);
    code = ptxdump::runTypes(types, out, err);
  } else if (extractCmd->parsed()) {
    if (sectionOption->count() == 0 && !extract.ptx) {
      err += "--section is required (or --ptx, a cubin's embedded PTX)\nRun with --help for more information.\n";
      return finish(106, out, err);
    }
    if (extract.output.empty() && !extract.relocations) extract.output = "-";
    code = ptxdump::runExtract(extract, out, err);
  } else if (reformatCmd->parsed()) {
    reformat.stream = stdout;
    code = ptxdump::runReformat(reformat, out, err);
  } else if (stripCmd->parsed()) {
    code = ptxdump::runStrip(strip, out, err);
  } else if (annotateCmd->parsed()) {
    code = ptxdump::runAnnotate(annotate, out, err);
  } else if (lookupCmd->parsed()) {
    lookup.format = formatNamed(lookupFormat);
    code = ptxdump::runLookup(lookup, out, err);
  } else if (diffCmd->parsed()) {
    if (diff.oldFile == "-" && diff.newFile == "-") {
      std::fprintf(stderr, "ptxdump: error: diff - -: standard input can be read only once; name a file for one side\n");
      return ptxdump::kUnreadable;
    }
    code = ptxdump::runDiff(diff, out, err);
  } else if (checkCmd->parsed()) {
    if (listRules) {
      ptxdump::writeTo(stdout, ptxdump::listRules());
      return 0;
    }
    if (check.files.empty()) {
      std::fprintf(stderr, "ptxdump check: error: files is required (or --list-rules); see ptxdump check --help\n");
      return ptxdump::kUnreadable;
    }
    check.sources = sourcesFlag->count() > 0;
    if (check.sources && sourcesArg != "-") check.sourceDirectory = sourcesArg;
    code = ptxdump::runCheck(check, out, err);
    ptxdump::writeTo(stderr, err);  // diagnostics first, then the summary
    err.clear();
  }
  return finish(code, out, err);
}
