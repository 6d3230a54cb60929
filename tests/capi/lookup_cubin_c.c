/* The lookup C API on a cubin from C11 (fixtures/cubin/lookup_locals_G_sm90.cubin,
 * ptxas -g of nvcc -G's PTX): a source line's breakpoint address, the SASS
 * location of each variable, <optimized out>, FUNCTION+0xPC, and a PTX
 * file's match having no address.
 * Usage: ptxdwarf_capi_lookup_cubin <the cubin> <fixtures/chapter6.ptx> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

static const ptxdwarf_variable_info* find(const ptxdwarf_lookup* l, size_t count, const char* name,
                                          ptxdwarf_variable_info* v, size_t* index) {
  for (size_t i = 0; i < count; ++i)
    if (ptxdwarf_lookup_variable(l, 0, i, v) == PTXDWARF_OK && strcmp(v->name, name) == 0) {
      *index = i;
      return v;
    }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char bytes[1 << 17];
  size_t length = fread(bytes, 1, sizeof bytes, f);
  fclose(f);

  ptxdwarf_module* m = NULL;
  ptxdwarf_status st = ptxdwarf_module_read(bytes, length, "locals.cubin", &m);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (!m) return 1;
  memset(bytes, 0, sizeof bytes); /* the module keeps its own copy */

  /* sumLocal's line 4: one breakpoint address, +0xd0. */
  ptxdwarf_lookup* l = NULL;
  st = ptxdwarf_lookup_at(m, "locals.cu:4", &l);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  EXPECT(ptxdwarf_lookup_match_count(l) == 1, "%zu matches", ptxdwarf_lookup_match_count(l));
  ptxdwarf_match_info match;
  uint64_t pc = 0;
  uint32_t line = 0;
  if (ptxdwarf_lookup_match(l, 0, &match) == PTXDWARF_OK) {
    EXPECT(strcmp(match.function, "_Z8sumLocalPKii") == 0, "function %s", match.function);
    EXPECT(ptxdwarf_lookup_match_pc(l, 0, &pc, &line) == PTXDWARF_OK && pc == 0xd0 && line == 4, "pc 0x%llx line %u",
           (unsigned long long)pc, line);
    ptxdwarf_variable_info v;
    size_t index = 0;
    const char* const* sass = NULL;
    size_t count = 0;
    /* a: a 64-bit pointer in two registers. */
    EXPECT(find(l, match.variable_count, "a", &v, &index) && v.available, "a");
    EXPECT(ptxdwarf_lookup_variable_sass(l, 0, index, &sass, &count) == PTXDWARF_OK && count == 2 &&
               strcmp(sass[0], "R0") == 0 && strcmp(sass[1], "R3") == 0,
           "a in %zu pieces", count);
    /* i: its location list starts after line 4's address: <optimized out>. */
    EXPECT(find(l, match.variable_count, "i", &v, &index) && !v.available, "i");
    EXPECT(ptxdwarf_lookup_variable_sass(l, 0, index, &sass, &count) == PTXDWARF_OK && count == 0, "i: %zu", count);
  }
  ptxdwarf_lookup_free(l);

  /* FUNCTION+0xPC: localArrays' parameters in the parameter bank. */
  st = ptxdwarf_lookup_at(m, "_Z11localArraysPKiPxi+0x1290", &l);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  if (st == PTXDWARF_OK && ptxdwarf_lookup_match(l, 0, &match) == PTXDWARF_OK) {
    ptxdwarf_variable_info v;
    size_t index = 0;
    const char* const* sass = NULL;
    size_t count = 0;
    EXPECT(find(l, match.variable_count, "n", &v, &index) && v.available, "n");
    EXPECT(ptxdwarf_lookup_variable_sass(l, 0, index, &sass, &count) == PTXDWARF_OK && count == 1 &&
               strcmp(sass[0], "[param+0x220]") == 0,
           "n at %s", count ? sass[0] : "");
    ptxdwarf_lookup_free(l);
  }
  st = ptxdwarf_lookup_at(m, "_Z11localArraysPKiPxi+0x99999", &l);
  EXPECT(st == PTXDWARF_E_NOT_FOUND, "%s", ptxdwarf_status_name(st));
  ptxdwarf_module_free(m);

  /* A PTX file's match has no SASS address. */
  f = fopen(argv[2], "rb");
  if (!f) return 2;
  length = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  st = ptxdwarf_module_read(bytes, length, "chapter6.ptx", &m);
  EXPECT(st == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  if (m && ptxdwarf_lookup_at(m, "call_example.cu:8", &l) == PTXDWARF_OK) {
    EXPECT(ptxdwarf_lookup_match_pc(l, 0, &pc, NULL) == PTXDWARF_E_NOT_FOUND, "no pc on PTX");
    const char* const* sass = NULL;
    size_t count = 7;
    EXPECT(ptxdwarf_lookup_variable_sass(l, 0, 0, &sass, &count) == PTXDWARF_OK && count == 0, "%zu", count);
    ptxdwarf_lookup_free(l);
  }
  ptxdwarf_module_free(m);
  return failures ? 1 : 0;
}
