// Everything a ptx::ReadResult holds, as text: two reads are the same read
// exactly when these are equal. Lets tests compare readers (one thread
// against several) with a readable first difference.
#pragma once

#include <string>

#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::testsupport {

std::string moduleText(const ptx::ReadResult& result);

}  // namespace ptxdwarf::testsupport
