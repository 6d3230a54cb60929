// `ptxdump lookup FILE --at WHERE`: the debugger's view at a place, as text or JSON.
#pragma once

#include <string>

#include "commands.h"

namespace ptxdump {

struct LookupRequest {
  std::string file;
  std::string at;
  Format format = Format::text;
};
int runLookup(const LookupRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
