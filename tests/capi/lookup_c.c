/* The lookup C API from C11, on fixtures/chapter6.ptx: a source line, its
 * scope and visible parameter, and the NOT_FOUND path.
 * Usage: ptxdwarf_capi_lookup <path to fixtures/chapter6.ptx> */
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

  ptxdwarf_module* m = NULL;
  ptxdwarf_status st = ptxdwarf_module_read(text, length, "chapter6.ptx", &m);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (!m) return 1;

  ptxdwarf_lookup* l = NULL;
  st = ptxdwarf_lookup_at(m, "call_example.cu:8", &l);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  EXPECT(ptxdwarf_lookup_match_count(l) == 1, "%zu matches", ptxdwarf_lookup_match_count(l));
  ptxdwarf_match_info match;
  if (ptxdwarf_lookup_match(l, 0, &match) == PTXDWARF_OK) {
    EXPECT(strcmp(match.function, "_Z4testPi") == 0, "function %s", match.function);
    EXPECT(match.ptx_line_count == 1 && match.ptx_lines[0] == 39, "%zu lines", match.ptx_line_count);
    EXPECT(match.scope_count == 1 && match.variable_count == 1, "%zu scopes, %zu variables", match.scope_count,
           match.variable_count);
    ptxdwarf_scope_info scope;
    EXPECT(ptxdwarf_lookup_scope(l, 0, 0, &scope) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
    EXPECT(scope.tag == PTXDWARF_DW_TAG_subprogram && strcmp(scope.name, "_Z4testPi") == 0 && scope.die == 0xae,
           "scope %u %s %llu", scope.tag, scope.name, (unsigned long long)scope.die);
    ptxdwarf_variable_info v;
    EXPECT(ptxdwarf_lookup_variable(l, 0, 0, &v) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
    EXPECT(strcmp(v.name, "p") == 0 && v.is_parameter && strcmp(v.type, "int *") == 0 &&
               strcmp(v.location, "_Z4testPi_param_0") == 0 && v.available &&
               v.address_class == PTXDWARF_ADDR_PARAM_SPACE && v.decl_line == 6,
           "variable %s %s at %s class %llu", v.name, v.type, v.location, (unsigned long long)v.address_class);
    EXPECT(ptxdwarf_lookup_variable(l, 0, 1, &v) == PTXDWARF_E_NOT_FOUND, "one variable only");
  }
  ptxdwarf_lookup_free(l);

  ptxdwarf_lookup* none = NULL;
  st = ptxdwarf_lookup_at(m, "nothere.cu:1", &none);
  EXPECT(st == PTXDWARF_E_NOT_FOUND && none == NULL, "%s", ptxdwarf_status_name(st));
  EXPECT(strcmp(ptxdwarf_last_error(), "no .file names 'nothere.cu'") == 0, "message '%s'", ptxdwarf_last_error());
  ptxdwarf_module_free(m);

  /* The file opened as ptxdump reads it gives the same answer; a file that
   * cannot be read is a parse error naming it. */
  ptxdwarf_module* opened = NULL;
  st = ptxdwarf_module_open(argv[1], 2, &opened);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (opened) {
    st = ptxdwarf_lookup_at(opened, "call_example.cu:8", &l);
    EXPECT(st == PTXDWARF_OK && ptxdwarf_lookup_match_count(l) == 1, "%s: %s", ptxdwarf_status_name(st),
           ptxdwarf_last_error());
    if (st == PTXDWARF_OK && ptxdwarf_lookup_match(l, 0, &match) == PTXDWARF_OK)
      EXPECT(strcmp(match.function, "_Z4testPi") == 0 && match.ptx_lines[0] == 39, "function %s", match.function);
    ptxdwarf_lookup_free(l);
    ptxdwarf_module_free(opened);
  }
  opened = NULL;
  st = ptxdwarf_module_open("/nonexistent/k.ptx", 0, &opened);
  EXPECT(st == PTXDWARF_E_PARSE && opened == NULL, "%s", ptxdwarf_status_name(st));
  EXPECT(strcmp(ptxdwarf_last_error(), "/nonexistent/k.ptx: error: cannot read file: No such file or directory") == 0,
         "message '%s'", ptxdwarf_last_error());
  EXPECT(ptxdwarf_module_open(NULL, 0, &opened) == PTXDWARF_E_INVALID_ARGUMENT, "NULL path");

  ptxdwarf_module* bad = NULL;
  st = ptxdwarf_module_read(".version 8.0\n.entry k(\n", 22, "bad.ptx", &bad);
  EXPECT(st == PTXDWARF_E_PARSE && bad == NULL, "%s", ptxdwarf_status_name(st));
  return failures ? 1 : 0;
}
