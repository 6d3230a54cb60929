/* ptxdwarf_strip and ptxdwarf_remap_paths from C11, on fixtures/chapter6.ptx:
 * what each mode leaves, a remapped .file that reads back, and the argument
 * errors. Usage: ptxdwarf_capi_strip_remap <path to fixtures/chapter6.ptx> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char text[1 << 16];
  size_t length = fread(text, 1, sizeof text, f);
  fclose(f);

  char* out = NULL;
  ptxdwarf_status st = ptxdwarf_strip(text, length, "chapter6.ptx", PTXDWARF_STRIP_ALL, &out);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (out) {
    EXPECT(strstr(out, ".section") == NULL, "a section is left");
    EXPECT(strstr(out, ".file") == NULL, ".file is left");
    EXPECT(strstr(out, ".loc") == NULL, ".loc is left");
    EXPECT(strstr(out, ".target sm_20\n") != NULL, "`debug` is left on .target");
    EXPECT(strstr(out, ".entry") != NULL, "the code is gone");
    ptxdwarf_string_free(out);
    out = NULL;
  }

  st = ptxdwarf_strip(text, length, "chapter6.ptx", PTXDWARF_STRIP_KEEP_LINES, &out);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (out) {
    EXPECT(strstr(out, ".debug_info") == NULL, ".debug_info is left");
    EXPECT(strstr(out, ".file 1 \"call_example.cu\"") != NULL, ".file is gone");
    EXPECT(strstr(out, ".loc") != NULL, ".loc is gone");
    ptxdwarf_string_free(out);
    out = NULL;
  }

  st = ptxdwarf_strip(text, length, "chapter6.ptx", 7, &out);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "mode 7: %s", ptxdwarf_status_name(st));
  EXPECT(out == NULL, "an output for a refused call");

  /* The last matching map wins. */
  const char* maps[] = {"call=first/", "call_=/src/renamed_"};
  st = ptxdwarf_remap_paths(text, length, "chapter6.ptx", maps, 2, &out);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (out) {
    EXPECT(strstr(out, ".file 1 \"/src/renamed_example.cu\"") != NULL, "the .file path is not remapped");
    ptxdwarf_module* m = NULL;
    st = ptxdwarf_module_read(out, strlen(out), "remapped.ptx", &m);
    EXPECT(st == PTXDWARF_OK, "the remapped text does not read back: %s", ptxdwarf_last_error());
    ptxdwarf_module_free(m);
    ptxdwarf_string_free(out);
    out = NULL;
  }

  const char* bad[] = {"no-equals-sign"};
  st = ptxdwarf_remap_paths(text, length, "chapter6.ptx", bad, 1, &out);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "OLD without =NEW: %s", ptxdwarf_status_name(st));
  EXPECT(strstr(ptxdwarf_last_error(), "OLD=NEW") != NULL, "message: %s", ptxdwarf_last_error());

  st = ptxdwarf_strip("not ptx", 7, "bad.ptx", PTXDWARF_STRIP_ALL, &out);
  EXPECT(st == PTXDWARF_E_PARSE, "unreadable text: %s", ptxdwarf_status_name(st));
  EXPECT(strstr(ptxdwarf_last_error(), "bad.ptx:1:") != NULL, "message: %s", ptxdwarf_last_error());

  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("strip and remap from C: ok\n");
  return failures ? 1 : 0;
}
