/* What a cubin holds beyond its DWARF, from C11: the register map of
 * `ptxas -g` of fixtures/producers/nvcc_G_locals_main.ptx (the entries of
 * `ptxdump dump --debug-regmap --format json`), and the line table with
 * inline stacks, the SASS lines and the embedded PTX of `ptxas -lineinfo` of
 * fixtures/faults/lines/base.ptx (two levels of inlining).
 * Usage: ptxdwarf_capi_cubin <locals.cubin> <base.cubin> <chapter6.ptx> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "ptxdwarf/ptxdwarf.h"

static ptxdwarf_cubin* openCubin(const char* path) {
  ptxdwarf_module* m = NULL;
  ptxdwarf_status st = ptxdwarf_module_open(path, 1, &m);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  EXPECT(ptxdwarf_module_is_cubin(m) == 1, "%s is a cubin", path);
  ptxdwarf_cubin* c = NULL;
  st = ptxdwarf_cubin_open(m, &c);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  ptxdwarf_module_free(m); /* the cubin keeps what it hands out */
  return c;
}

static void registerMap(const char* path) {
  ptxdwarf_cubin* c = openCubin(path);
  if (!c) return;
  size_t count = ptxdwarf_cubin_regmap_count(c);
  EXPECT(count > 40, "%zu entries", count);
  EXPECT(strcmp(ptxdwarf_cubin_regmap_problem(c), "") == 0, "problem %s", ptxdwarf_cubin_regmap_problem(c));
  ptxdwarf_regmap_entry e;
  EXPECT(ptxdwarf_cubin_regmap_entry(c, 0, &e) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  EXPECT(strcmp(e.function, "_Z8sumLocalPKii") == 0 && strcmp(e.register_name, "%p1") == 0 && e.piece == 0 &&
             e.loc == 0x2000000 && strcmp(e.class_name, "predicate") == 0 && strcmp(e.sass, "P0") == 0 &&
             e.start == 0x190 && e.end == 0x1a0,
         "entry 0: %s %s %u 0x%x %s %s 0x%x-0x%x", e.function, e.register_name, e.piece, e.loc, e.class_name, e.sass,
         e.start, e.end);
  size_t full = 0, kernel = 0;
  for (size_t i = 0; i < count; ++i) {
    if (ptxdwarf_cubin_regmap_entry(c, i, &e) != PTXDWARF_OK) break;
    EXPECT(e.register_name[0] == '%' && e.start <= e.end && e.sass[0] != '\0', "entry %zu", i);
    if (strcmp(e.class_name, "full") == 0) {
      ++full;
      EXPECT(e.sass[0] == 'R' && (e.loc >> 24) == 5, "full register %s 0x%x", e.sass, e.loc);
    }
    kernel += strcmp(e.function, "_Z11localArraysPKiPxi") == 0;
  }
  EXPECT(full > 0 && kernel > 0, "%zu full, %zu of the kernel", full, kernel);
  EXPECT(ptxdwarf_cubin_regmap_entry(c, count, &e) == PTXDWARF_E_NOT_FOUND, "past the end");
  /* ptxas -g writes no inlining here: no row has an inline stack. */
  ptxdwarf_line_row row;
  for (size_t i = 0; i < ptxdwarf_cubin_line_count(c); ++i)
    if (ptxdwarf_cubin_line(c, i, &row) == PTXDWARF_OK)
      EXPECT(row.inline_depth == 0 && row.inline_frames_omitted == 0, "row %zu", i);
  ptxdwarf_cubin_free(c);
}

static void lineTables(const char* path) {
  ptxdwarf_cubin* c = openCubin(path);
  if (!c) return;
  EXPECT(ptxdwarf_cubin_regmap_count(c) == 0, "-lineinfo: no register map");
  size_t inlined = 0;
  ptxdwarf_line_row row;
  for (size_t i = 0; i < ptxdwarf_cubin_line_count(c); ++i) {
    if (ptxdwarf_cubin_line(c, i, &row) != PTXDWARF_OK || row.inline_depth != 2) continue;
    ++inlined;
    /* 0x40: square.h:9 inside _Z4bumpi, called at square.h:5 inside _Z6squarei, called at kernel.cu:21. */
    EXPECT(row.address == 0x40 && row.line == 9 && strcmp(row.file, "/home/dev/include/square.h") == 0 &&
               row.is_stmt && !row.end_sequence && !row.inline_broken,
           "row 0x%llx %s:%u", (unsigned long long)row.address, row.file, row.line);
    ptxdwarf_inline_frame inner, outer;
    EXPECT(ptxdwarf_cubin_inline_frame(c, i, 0, &inner) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
    EXPECT(ptxdwarf_cubin_inline_frame(c, i, 1, &outer) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
    EXPECT(strcmp(inner.function, "_Z4bumpi") == 0 && strcmp(inner.call_file, "/home/dev/include/square.h") == 0 &&
               inner.call_line == 5,
           "inner %s at %s:%u", inner.function, inner.call_file, inner.call_line);
    EXPECT(strcmp(outer.function, "_Z6squarei") == 0 && strcmp(outer.call_file, "/home/dev/kernel.cu") == 0 &&
               outer.call_line == 21,
           "outer %s at %s:%u", outer.function, outer.call_file, outer.call_line);
    EXPECT(ptxdwarf_cubin_inline_frame(c, i, 2, &outer) == PTXDWARF_E_NOT_FOUND, "two frames");
  }
  EXPECT(inlined == 1, "%zu rows two calls deep", inlined);

  const char* text = NULL;
  size_t length = 0;
  EXPECT(ptxdwarf_cubin_embedded_ptx(c, &text, &length) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  size_t lines = 0;
  for (size_t i = 0; text && i < length; ++i) lines += text[i] == '\n';
  EXPECT(text && strstr(text, ".visible .entry _Z6kernelPi(") != NULL, "the embedded PTX");
  /* Every SASS row names a line of the embedded PTX; the first is the kernel's first instruction. */
  size_t sassRows = ptxdwarf_cubin_sass_line_count(c);
  EXPECT(sassRows >= 8, "%zu SASS rows", sassRows);
  ptxdwarf_sass_line s;
  for (size_t i = 0; i < sassRows; ++i) {
    if (ptxdwarf_cubin_sass_line(c, i, &s) != PTXDWARF_OK) break;
    EXPECT(s.ptx_line >= 1 && s.ptx_line <= lines, "SASS row %zu: PTX line %u of %zu", i, s.ptx_line, lines);
  }
  EXPECT(ptxdwarf_cubin_sass_line(c, 0, &s) == PTXDWARF_OK && s.address == 0 && s.ptx_line == 13 && !s.end_sequence,
         "first SASS row 0x%llx -> %u", (unsigned long long)s.address, s.ptx_line);
  EXPECT(ptxdwarf_cubin_sass_line(c, sassRows, &s) == PTXDWARF_E_NOT_FOUND, "past the end");
  ptxdwarf_cubin_free(c);
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  registerMap(argv[1]);
  lineTables(argv[2]);
  /* A module read from PTX has none of this. */
  ptxdwarf_module* ptx = NULL;
  EXPECT(ptxdwarf_module_open(argv[3], 1, &ptx) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  ptxdwarf_cubin* c = NULL;
  EXPECT(ptxdwarf_module_is_cubin(ptx) == 0, "PTX is no cubin");
  EXPECT(ptxdwarf_cubin_open(ptx, &c) == PTXDWARF_E_INVALID_ARGUMENT && c == NULL, "refused");
  EXPECT(strstr(ptxdwarf_last_error(), "not a cubin") != NULL, "message %s", ptxdwarf_last_error());
  EXPECT(ptxdwarf_cubin_regmap_count(NULL) == 0 && ptxdwarf_cubin_line_count(NULL) == 0, "NULL: none");
  ptxdwarf_module_free(ptx);
  return failures != 0;
}
