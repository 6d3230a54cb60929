/* Uses the installed C API from strict C99 (compiled with the flags of
 * `pkg-config --cflags --libs ptxdwarf`): builds the Chapter 6 unit and prints
 * the size of its encoded .debug_info (266 bytes). */
#include <ptxdwarf/ptxdwarf.h>
#include <stdio.h>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    ptxdwarf_status st_ = (call);                                                               \
    if (st_ != PTXDWARF_OK) {                                                                   \
      fprintf(stderr, "%s: %s: %s\n", #call, ptxdwarf_status_name(st_), ptxdwarf_last_error()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

int main(void) {
  ptxdwarf_unit* u;
  ptxdwarf_die int_t, void_t, int_ptr, foo, test, die;
  ptxdwarf_expr *r1, *r2, *p0;
  ptxdwarf_sections* s;
  ptxdwarf_section_info info;
  size_t index;

  CHECK(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u));
  {
    ptxdwarf_compile_unit_desc cu = {0};
    cu.producer = "lgenfe: EDG 4.9";
    cu.name = "call1.cu";
    cu.comp_dir = "/home/mmurphy/test";
    CHECK(ptxdwarf_compile_unit(u, &cu));
  }
  CHECK(ptxdwarf_base_type(u, PTXDWARF_DETACHED, "int", PTXDWARF_DW_ATE_signed, 4, &int_t));
  CHECK(ptxdwarf_unspecified_type(u, PTXDWARF_DETACHED, "void", &void_t));
  CHECK(ptxdwarf_pointer_type(u, PTXDWARF_DETACHED, int_t, PTXDWARF_ADDR_GENERIC_SPACE, &int_ptr));
  {
    ptxdwarf_subprogram_desc d = {.name = "_Z3fooii",
                                  .linkage_name = "_Z3fooii",
                                  .decl_file = 1,
                                  .decl_line = 1,
                                  .type = int_t,
                                  .low_pc = "func_begin0",
                                  .high_pc = "func_end0"};
    CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &d, &foo));
  }
  CHECK(ptxdwarf_location_register("%r1", 8, &r1));
  CHECK(ptxdwarf_location_register("%r2", 8, &r2));
  {
    ptxdwarf_variable_desc i = {.name = "i", .decl_file = 1, .decl_line = 1, .type = int_t, .location = r1};
    ptxdwarf_variable_desc j = {.name = "j", .decl_file = 1, .decl_line = 1, .type = int_t, .location = r2};
    CHECK(ptxdwarf_formal_parameter(u, foo, &i, &die));
    CHECK(ptxdwarf_formal_parameter(u, foo, &j, &die));
  }
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, int_t));
  {
    ptxdwarf_subprogram_desc d = {.name = "_Z4testPi",
                                  .linkage_name = "_Z4testPi",
                                  .decl_file = 1,
                                  .decl_line = 6,
                                  .type = void_t,
                                  .low_pc = "func_begin1",
                                  .high_pc = "func_end1"};
    CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &d, &test));
  }
  CHECK(ptxdwarf_location_symbol("_Z4testPi_param_0", 0, PTXDWARF_SPACE_PARAM, 8, &p0));
  {
    ptxdwarf_variable_desc p = {.name = "p", .decl_file = 1, .decl_line = 6, .type = int_ptr, .location = p0};
    CHECK(ptxdwarf_formal_parameter(u, test, &p, &die));
  }
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, void_t));
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, int_ptr));

  CHECK(ptxdwarf_encode(u, NULL, &s));
  CHECK(ptxdwarf_sections_find(s, ".debug_info", &index));
  CHECK(ptxdwarf_sections_get(s, index, &info));
  printf(".debug_info: %lu bytes\n", (unsigned long)info.size);
  printf("C API: %s\n", ptxdwarf_status_name(PTXDWARF_OK));

  ptxdwarf_sections_free(s);
  ptxdwarf_expr_free(r1);
  ptxdwarf_expr_free(r2);
  ptxdwarf_expr_free(p0);
  ptxdwarf_unit_free(u);
  return 0;
}
