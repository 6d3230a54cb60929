// `ptxdump check --sources[=DIR]`: the source paths of a module's debug
// information that no debugger will open -- JIT producers write them:
// NVRTC names every program `default_program`, Numba and Triton point at
// temporary files that are gone by the time anyone debugs.
//
// Each path is looked for as gdb (and cuda-gdb, which is gdb) looks for a
// source file (gdb/source.c, find_and_open_source and openp), with the
// source path `DIR:$cdir:$cwd` -- gdb's default `$cdir:$cwd` after a
// `directory DIR` command, $cdir the unit's DW_AT_comp_dir, $cwd this
// process's working directory:
//   1. an absolute path as it is;
//   2. the path (leading '/' and "./" removed) in each directory of the
//      source path, in order;
//   3. when the unit has a DW_AT_comp_dir: comp_dir/path, as in 1 and 2;
//   4. the path's base name in each directory of the source path.
// The first readable regular file found is the one the debugger shows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::check {

// The files a debugger tries for `path`, in its order (see above), with
// `directory` the DIR of --sources=DIR (gdb's `directory DIR`; empty: none).
std::vector<std::string> sourceCandidates(std::string_view path, std::string_view compDir, std::string_view directory);

}  // namespace ptxdwarf::check
