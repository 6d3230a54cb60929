/* A JIT annotating through the C API: a few hundred bytes of PTX whose
 * register ranges would make hundreds of megabytes of DWARF get an error
 * (PTXDWARF_E_ASSEMBLE, the message saying why), not an exhausted disk;
 * a small range is annotated as before.
 * Usage: ptxdwarf_capi_annotate_limit (no arguments) */
#include <stdio.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

static void module(char* text, size_t size, const char* range) {
  snprintf(text, size,
           ".version 7.0\n.target sm_80\n.address_size 64\n"
           ".visible .entry k()\n{\n\t.reg .b32 %%r<%s>;\n\tmov.u32 %%r1, 1;\n\tret;\n}\n",
           range);
}

int main(void) {
  char text[512];
  char* out = NULL;
  module(text, sizeof text, "100000000");
  ptxdwarf_status st = ptxdwarf_annotate(text, strlen(text), "jit.ptx", NULL, &out, NULL);
  EXPECT(st == PTXDWARF_E_ASSEMBLE, "%s", ptxdwarf_status_name(st));
  EXPECT(out == NULL, "nothing written");
  EXPECT(strstr(ptxdwarf_last_error(), "jit.ptx:6:12: error: the annotated file would be about ") != NULL, "%s",
         ptxdwarf_last_error());

  module(text, sizeof text, "100");
  st = ptxdwarf_annotate(text, strlen(text), "jit.ptx", NULL, &out, NULL);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  EXPECT(out && strstr(out, ".section\t.debug_info") != NULL, "annotated");
  ptxdwarf_string_free(out);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
