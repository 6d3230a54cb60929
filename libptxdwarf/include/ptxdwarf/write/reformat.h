// Reformat a loaded file: its debug sections written again in another style,
// every other byte of the text kept (`ptxdump reformat` is this call).
//
//   Loaded in = ptxdwarf::load("k.ptx");
//   write::Reformatted out = write::reformat(in, {.style = write::Style::verbose, .reencode = true});
//   if (out.written) ... out.ptx ...; else ... out.diagnostics ...;
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/write/ptx_writer.h"

namespace ptxdwarf::write {

struct ReformatOptions {
  Style style = Style::packed;
  // Through the canonical encoder (encodeCanonical: abbreviations
  // re-interned, offsets recomputed) instead of the sections' own bytes.
  bool reencode = false;
  // Threads the encoder and the writer may use (EncodeOptions::threads,
  // WriteOptions::threads): 1, the default, is the caller's thread only.
  unsigned threads = 1;
  // Drop the pages of the input's mapped text once a run of it has been
  // handed to the sink (a caller that reads it no more; it faults back in).
  bool releaseText = false;
};

struct Reformatted {
  bool written = false;  // the whole text was made (and handed over, with a sink)
  std::string ptx;       // the text, when no sink took it
  // Why nothing was written: the writer's refusals (a label the .version
  // cannot hold, ...), located at the input's sections when the re-encoded
  // ones have no PTX position for them; or the input's DWARF cannot be
  // decoded (its decode errors, as in.dwarf.diagnostics).
  Diagnostics diagnostics;
};

// New text for `in` (ok(), its text still alive) with every debug section
// written in options.style.
Reformatted reformat(const Loaded& in, const ReformatOptions& options);
// The same, handed to `sink` in pieces as it is made, so that a caller writing
// a file never holds the whole of it (it is larger than the input). Every
// error is found before the first piece: when !written nothing was handed over.
Reformatted reformat(const Loaded& in, const ReformatOptions& options,
                     const std::function<void(std::string_view)>& sink);

}  // namespace ptxdwarf::write
