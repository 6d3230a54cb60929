/* Every enum the C API reads, given a value outside its enumerators: C lets a
 * caller store any int in an enum object, so each one is an argument error
 * (PTXDWARF_E_INVALID_ARGUMENT, or the documented answer for an unknown
 * value), never a crash or undefined behaviour (the library reads the field
 * as an integer; UBSan's enum check passes). The known values still work.
 * Usage: ptxdwarf_capi_enums (no arguments) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

/* Values no enum of the API has: past the last, far past it, negative. */
static const int kUnknown[] = {77, 99, 12345, -1, 0x7fffffff};
#define UNKNOWN_COUNT (sizeof kUnknown / sizeof kUnknown[0])

static const char kPtx[] =
    ".version 7.5\n.target sm_80\n.address_size 64\n"
    ".section .debug_abbrev { .b8 1, 17, 0, 0, 0 }\n";

static void expect_invalid(ptxdwarf_status st, const char* what, int value) {
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "%s %d: %s (%s)", what, value, ptxdwarf_status_name(st),
         ptxdwarf_last_error());
}

static void render_styles(void) {
  ptxdwarf_sections* s = NULL;
  ptxdwarf_status st = ptxdwarf_read_ptx(kPtx, strlen(kPtx), "enums.ptx", &s);
  EXPECT(st == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  if (!s) return;
  for (size_t i = 0; i < UNKNOWN_COUNT; ++i) {
    ptxdwarf_render_options ro;
    memset(&ro, 0, sizeof ro);
    ro.style = (ptxdwarf_style)kUnknown[i];
    char* out = NULL;
    expect_invalid(ptxdwarf_render_ptx(s, &ro, &out), "render style", kUnknown[i]);
    EXPECT(out == NULL, "nothing rendered");
    EXPECT(strstr(ptxdwarf_last_error(), "unknown style") != NULL, "%s", ptxdwarf_last_error());
  }
  ptxdwarf_render_options ro;
  memset(&ro, 0, sizeof ro);
  ro.style = PTXDWARF_STYLE_DENSE;
  char* out = NULL;
  EXPECT(ptxdwarf_render_ptx(s, &ro, &out) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  ptxdwarf_string_free(out);
  ptxdwarf_sections_free(s);
}

static void assemble_styles(void) {
  ptxdwarf_program* p = NULL;
  EXPECT(ptxdwarf_program_create(NULL, &p) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  if (!p) return;
  ptxdwarf_unit* u = NULL;
  EXPECT(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  const ptxdwarf_unit* units[1] = {u};
  for (size_t i = 0; i < UNKNOWN_COUNT; ++i) {
    ptxdwarf_assemble_options ao;
    memset(&ao, 0, sizeof ao);
    ao.style = (ptxdwarf_style)kUnknown[i];
    char* ptx = NULL;
    expect_invalid(ptxdwarf_program_assemble(p, units, 1, &ao, &ptx, NULL), "assemble style", kUnknown[i]);
    EXPECT(ptx == NULL, "nothing assembled");
  }
  ptxdwarf_unit_free(u);
  ptxdwarf_program_free(p);
}

static void policies_and_spaces(void) {
  for (size_t i = 0; i < UNKNOWN_COUNT; ++i) {
    ptxdwarf_unit* u = NULL;
    expect_invalid(ptxdwarf_unit_create(2, 8, (ptxdwarf_form_policy)kUnknown[i], &u), "form policy", kUnknown[i]);
    EXPECT(u == NULL, "no unit");
    ptxdwarf_expr* e = NULL;
    expect_invalid(ptxdwarf_location_symbol("g", 0, (ptxdwarf_space)kUnknown[i], 8, &e), "state space", kUnknown[i]);
    EXPECT(e == NULL, "no expression");
    EXPECT(ptxdwarf_address_class_of((ptxdwarf_space)kUnknown[i]) == 0, "address class of %d", kUnknown[i]);
    EXPECT(strcmp(ptxdwarf_status_name((ptxdwarf_status)kUnknown[i]), "PTXDWARF_E_UNKNOWN") == 0, "status name of %d",
           kUnknown[i]);
  }
  ptxdwarf_unit* u = NULL;
  EXPECT(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_COMPACT, &u) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  ptxdwarf_unit_free(u);
  ptxdwarf_expr* e = NULL;
  EXPECT(ptxdwarf_location_symbol("g", 0, PTXDWARF_SPACE_GLOBAL, 8, &e) == PTXDWARF_OK, "%s", ptxdwarf_last_error());
  ptxdwarf_expr_free(e);
  EXPECT(ptxdwarf_address_class_of(PTXDWARF_SPACE_SHARED) == PTXDWARF_ADDR_SHARED_SPACE, "shared");
  EXPECT(strcmp(ptxdwarf_status_name(PTXDWARF_E_ASSEMBLE), "PTXDWARF_E_ASSEMBLE") == 0, "known status");
}

int main(void) {
  render_styles();
  assemble_styles();
  policies_and_spaces();
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("every unknown enum value refused\n");
  return failures ? 1 : 0;
}
