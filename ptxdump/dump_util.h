// diff.cpp's names for the library's renderer and number formatting
// (ptxdwarf/print/render.h, ptxdwarf/format.h), kept until the diff moves into
// the library and includes those headers itself.
#pragma once

#include "ptxdwarf/format.h"
#include "ptxdwarf/print/render.h"

namespace ptxdump::detail {

using ptxdwarf::appendDec;
using ptxdwarf::appendEscaped;
using ptxdwarf::appendHex;
using ptxdwarf::appendJsonString;
using ptxdwarf::appendSigned;
using ptxdwarf::appendUnprintableEscaped;
using ptxdwarf::print::appendAttrName;
using ptxdwarf::print::appendFormName;
using ptxdwarf::print::appendReloc;
using ptxdwarf::print::appendSymbolPlus;
using ptxdwarf::print::appendTagName;
using ptxdwarf::print::LocEntryView;
using ptxdwarf::print::LocListReader;
using ptxdwarf::print::Renderer;

}  // namespace ptxdump::detail
