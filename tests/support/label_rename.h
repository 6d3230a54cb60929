// A PTX text with every label renamed: the generated half of the diff's
// "labels compare by what they stand for" pairs.
#pragma once

#include <string>
#include <string_view>

namespace ptxdwarf::testsupport {

// `text` with every code label and every label of a section renamed
// `$L__renamed<k>`, numbered backwards (the first label defined gets the
// highest number), wherever the name is written: its definition and every
// operand naming it. Names that are not labels (functions, variables,
// registers, sections) are left as they are.
std::string renameEveryLabel(std::string_view text);

}  // namespace ptxdwarf::testsupport
