/* The C API from C11: the Chapter 6 unit of the PTX interoperability guide,
 * built through ptxdwarf.h, must encode to exactly the bytes and relocations
 * of fixtures/chapter6.ptx (read through the C API too); rendering the
 * sections as PTX and reading them back gives the same sections; and the
 * error paths return their statuses with a message.
 *
 * Usage: ptxdwarf_capi_chapter6 <path to fixtures/chapter6.ptx>
 * Exit code 0 when everything matches; otherwise every difference is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

/* A difference found while comparing. */
#define DIFF(...)                                   \
  do {                                              \
    ++failures;                                     \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                   \
    fputc('\n', stderr);                            \
  } while (0)

/* Every builder call must succeed; the first failure ends the test. */
#define CHECK(call)                                                                                       \
  do {                                                                                                    \
    ptxdwarf_status st_ = (call);                                                                         \
    if (st_ != PTXDWARF_OK) {                                                                             \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call, ptxdwarf_status_name(st_), \
              ptxdwarf_last_error());                                                                     \
      exit(1);                                                                                            \
    }                                                                                                     \
  } while (0)

static char* read_file(const char* path, size_t* length) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char* buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char* bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  *length = n;
  return buf;
}

/* The Chapter 6 program as a producer describes it: types are declared
 * detached and placed where the example has them. */
static ptxdwarf_unit* chapter6(void) {
  ptxdwarf_unit* u = NULL;
  ptxdwarf_die int_t, void_t, int_ptr, foo, test, die;
  ptxdwarf_expr *r1, *r2, *param0;

  CHECK(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u));
  ptxdwarf_compile_unit_desc cu = {.producer = "lgenfe: EDG 4.9",
                                   .language = PTXDWARF_DW_LANG_C_plus_plus,
                                   .name = "call1.cu",
                                   .comp_dir = "/home/mmurphy/test"};
  CHECK(ptxdwarf_compile_unit(u, &cu));
  CHECK(ptxdwarf_base_type(u, PTXDWARF_DETACHED, "int", PTXDWARF_DW_ATE_signed, 4, &int_t));
  CHECK(ptxdwarf_unspecified_type(u, PTXDWARF_DETACHED, "void", &void_t));
  CHECK(ptxdwarf_pointer_type(u, PTXDWARF_DETACHED, int_t, PTXDWARF_ADDR_GENERIC_SPACE, &int_ptr));

  ptxdwarf_subprogram_desc foo_d = {.name = "_Z3fooii",
                                    .linkage_name = "_Z3fooii",
                                    .decl_file = 1,
                                    .decl_line = 1,
                                    .type = int_t,
                                    .low_pc = "func_begin0",
                                    .high_pc = "func_end0"};
  CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &foo_d, &foo));
  CHECK(ptxdwarf_location_register("%r1", 8, &r1));
  CHECK(ptxdwarf_location_register("%r2", 8, &r2));
  ptxdwarf_variable_desc i = {.name = "i", .decl_file = 1, .decl_line = 1, .type = int_t, .location = r1};
  ptxdwarf_variable_desc j = {.name = "j", .decl_file = 1, .decl_line = 1, .type = int_t, .location = r2};
  CHECK(ptxdwarf_formal_parameter(u, foo, &i, &die));
  CHECK(ptxdwarf_formal_parameter(u, foo, &j, &die));
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, int_t));

  ptxdwarf_subprogram_desc test_d = {.name = "_Z4testPi",
                                     .linkage_name = "_Z4testPi",
                                     .decl_file = 1,
                                     .decl_line = 6,
                                     .type = void_t,
                                     .low_pc = "func_begin1",
                                     .high_pc = "func_end1"};
  CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &test_d, &test));
  CHECK(ptxdwarf_location_symbol("_Z4testPi_param_0", 0, PTXDWARF_SPACE_PARAM, 8, &param0));
  EXPECT(ptxdwarf_expr_address_class(param0) == PTXDWARF_ADDR_PARAM_SPACE, "class %u",
         (unsigned)ptxdwarf_expr_address_class(param0));
  ptxdwarf_variable_desc p = {.name = "p", .decl_file = 1, .decl_line = 6, .type = int_ptr, .location = param0};
  CHECK(ptxdwarf_formal_parameter(u, test, &p, &die));
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, void_t));
  CHECK(ptxdwarf_attach(u, PTXDWARF_ROOT, int_ptr));

  ptxdwarf_expr_free(r1);
  ptxdwarf_expr_free(r2);
  ptxdwarf_expr_free(param0);
  return u;
}

/* Compares the section `name` of `got` with that of `want`: bytes and relocations. */
static void compare_section(const ptxdwarf_sections* got, const ptxdwarf_sections* want, const char* name) {
  size_t gi, wi;
  ptxdwarf_section_info g, w;
  if (ptxdwarf_sections_find(want, name, &wi) != PTXDWARF_OK) {
    DIFF("the fixture has no %s: %s", name, ptxdwarf_last_error());
    return;
  }
  if (ptxdwarf_sections_find(got, name, &gi) != PTXDWARF_OK) {
    DIFF("the built sections have no %s: %s", name, ptxdwarf_last_error());
    return;
  }
  CHECK(ptxdwarf_sections_get(got, gi, &g));
  CHECK(ptxdwarf_sections_get(want, wi, &w));
  EXPECT(strcmp(g.name, name) == 0, "%s is named %s", name, g.name);
  EXPECT(g.size == w.size, "%s: %zu bytes built, %zu in the fixture", name, g.size, w.size);
  size_t n = g.size < w.size ? g.size : w.size, shown = 0;
  for (size_t k = 0; k < n && shown < 10; ++k) {
    if (g.bytes[k] != w.bytes[k]) {
      DIFF("%s+%zu: built 0x%02x, fixture 0x%02x", name, k, g.bytes[k], w.bytes[k]);
      ++shown;
    }
  }
  EXPECT(g.relocation_count == w.relocation_count, "%s: %zu relocations built, %zu in the fixture", name,
         g.relocation_count, w.relocation_count);
  for (size_t k = 0; k < g.relocation_count && k < w.relocation_count; ++k) {
    ptxdwarf_relocation gr, wr;
    CHECK(ptxdwarf_sections_relocation(got, gi, k, &gr));
    CHECK(ptxdwarf_sections_relocation(want, wi, k, &wr));
    EXPECT(gr.offset == wr.offset && gr.size == wr.size && strcmp(gr.symbol, wr.symbol) == 0 &&
               strcmp(gr.minus, wr.minus) == 0 && gr.addend == wr.addend,
           "%s relocation %zu: built %llu/%u %s%s%s%+lld, fixture %llu/%u %s%s%s%+lld", name, k,
           (unsigned long long)gr.offset, (unsigned)gr.size, gr.symbol, *gr.minus ? "-" : "", gr.minus,
           (long long)gr.addend, (unsigned long long)wr.offset, (unsigned)wr.size, wr.symbol, *wr.minus ? "-" : "",
           wr.minus, (long long)wr.addend);
  }
}

static void test_chapter6(const char* fixture_path) {
  size_t length = 0;
  char* text = read_file(fixture_path, &length);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", fixture_path);
    exit(1);
  }
  ptxdwarf_sections* want = NULL;
  CHECK(ptxdwarf_read_ptx(text, length, fixture_path, &want));
  free(text);

  ptxdwarf_unit* u = chapter6();
  EXPECT(ptxdwarf_unit_die_count(u) == 9, "%zu DIEs", ptxdwarf_unit_die_count(u));
  ptxdwarf_sections* got = NULL;
  ptxdwarf_encode_options chapter6_lengths = {.pubnames_length_chapter6 = 1};  /* the example's convention */
  CHECK(ptxdwarf_encode(u, &chapter6_lengths, &got));
  EXPECT(*ptxdwarf_last_error() == '\0', "a successful call leaves no message, got '%s'", ptxdwarf_last_error());

  const char* names[] = {".debug_info", ".debug_abbrev", ".debug_pubnames"};
  for (size_t k = 0; k < 3; ++k) compare_section(got, want, names[k]);
  size_t index;
  EXPECT(ptxdwarf_sections_find(got, ".debug_loc", &index) == PTXDWARF_E_NOT_FOUND, "no lists, no .debug_loc");
  EXPECT(ptxdwarf_sections_find(got, ".debug_aranges", &index) == PTXDWARF_E_NOT_FOUND, "no .debug_aranges asked");
  ptxdwarf_section_info info;
  CHECK(ptxdwarf_sections_find(got, ".debug_info", &index));
  CHECK(ptxdwarf_sections_get(got, index, &info));
  EXPECT(info.size == 266, ".debug_info is %zu bytes", info.size);

  /* PTX text: rendered, read back, the same sections. */
  char* ptx = NULL;
  ptxdwarf_render_options ro = {.style = PTXDWARF_STYLE_PACKED, .version_major = 4, .version_minor = 2};
  CHECK(ptxdwarf_render_ptx(got, &ro, &ptx));
  EXPECT(strstr(ptx, ".section") != NULL && strstr(ptx, ".debug_info") != NULL, "rendered text:\n%s", ptx);
  EXPECT(strstr(ptx, ".debug_abbrev") != NULL, "rendered text:\n%s", ptx);
  EXPECT(strstr(ptx, "func_begin0") != NULL, "rendered text:\n%s", ptx);
  ptxdwarf_sections* back = NULL;
  CHECK(ptxdwarf_read_ptx(ptx, strlen(ptx), "rendered.ptx", &back));
  EXPECT(ptxdwarf_sections_count(back) == ptxdwarf_sections_count(got), "%zu sections read back, %zu rendered",
         ptxdwarf_sections_count(back), ptxdwarf_sections_count(got));
  for (size_t k = 0; k < 3; ++k) compare_section(back, got, names[k]);
  ptxdwarf_string_free(ptx);
  ptxdwarf_sections_free(back);

  ro.style = PTXDWARF_STYLE_VERBOSE; /* annotated: the same sections again */
  CHECK(ptxdwarf_render_ptx(got, &ro, &ptx));
  EXPECT(strstr(ptx, "DW_TAG_subprogram") != NULL, "verbose text:\n%s", ptx);
  CHECK(ptxdwarf_read_ptx(ptx, strlen(ptx), "verbose.ptx", &back));
  for (size_t k = 0; k < 3; ++k) compare_section(back, got, names[k]);
  ptxdwarf_string_free(ptx);
  ptxdwarf_sections_free(back);

  ro.style = PTXDWARF_STYLE_DENSE; /* words: the same sections again */
  CHECK(ptxdwarf_render_ptx(got, &ro, &ptx));
  EXPECT(strstr(ptx, "\n.b32 ") != NULL, "dense text:\n%s", ptx);
  CHECK(ptxdwarf_read_ptx(ptx, strlen(ptx), "dense.ptx", &back));
  for (size_t k = 0; k < 3; ++k) compare_section(back, got, names[k]);
  ptxdwarf_string_free(ptx);

  ptxdwarf_sections_free(back);
  ptxdwarf_sections_free(got);
  ptxdwarf_sections_free(want);
  ptxdwarf_unit_free(u);
}

static void test_errors(void) {
  ptxdwarf_expr* e = NULL;
  ptxdwarf_status st = ptxdwarf_location_register("r1", 8, &e);
  EXPECT(st == PTXDWARF_E_BAD_REGISTER, "got %s", ptxdwarf_status_name(st));
  EXPECT(e == NULL, "no expression on failure");
  EXPECT(strstr(ptxdwarf_last_error(), "'r1'") != NULL && strstr(ptxdwarf_last_error(), "DW_OP_regx") != NULL,
         "message: '%s'", ptxdwarf_last_error());
  st = ptxdwarf_location_register("%verylong1", 8, &e);
  EXPECT(st == PTXDWARF_E_BAD_REGISTER, "got %s", ptxdwarf_status_name(st));

  CHECK(ptxdwarf_expr_create(8, &e));
  st = ptxdwarf_expr_bregx(e, "rd1", 4);
  EXPECT(st == PTXDWARF_E_BAD_REGISTER, "got %s", ptxdwarf_status_name(st));
  size_t n = 1;
  EXPECT(ptxdwarf_expr_bytes(e, &n) == NULL && n == 0, "a failed append leaves the expression as it was (%zu)", n);
  CHECK(ptxdwarf_expr_regx(e, "%rd10"));
  const uint8_t regx[] = {0x90, 0xb0, 0xe2, 0x90, 0x93, 0xd7, 0x04}; /* regx 0x2572643130 */
  const uint8_t* bytes = ptxdwarf_expr_bytes(e, &n);
  EXPECT(n == sizeof regx && memcmp(bytes, regx, n) == 0, "%zu bytes", n);
  ptxdwarf_expr_free(e);

  /* NULL handles and pointers. */
  ptxdwarf_compile_unit_desc cu = {.name = "a.cu"};
  st = ptxdwarf_compile_unit(NULL, &cu);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "got %s", ptxdwarf_status_name(st));
  EXPECT(strcmp(ptxdwarf_last_error(), "the unit is NULL") == 0, "message: '%s'", ptxdwarf_last_error());
  ptxdwarf_sections* s = NULL;
  st = ptxdwarf_encode(NULL, NULL, &s);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT && s == NULL, "got %s", ptxdwarf_status_name(st));
  ptxdwarf_section_info info;
  st = ptxdwarf_sections_get(NULL, 0, &info);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "got %s", ptxdwarf_status_name(st));
  st = ptxdwarf_expr_op(NULL, PTXDWARF_DW_OP_nop);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "got %s", ptxdwarf_status_name(st));
  st = ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, NULL);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "got %s", ptxdwarf_status_name(st));
  EXPECT(ptxdwarf_sections_count(NULL) == 0 && ptxdwarf_unit_die_count(NULL) == 0, "NULL counts nothing");
  ptxdwarf_unit_free(NULL); /* free functions accept NULL */
  ptxdwarf_expr_free(NULL);
  ptxdwarf_sections_free(NULL);
  ptxdwarf_string_free(NULL);

  /* Builder misuse: unknown DIE, bad options, a pinned form too small. */
  ptxdwarf_unit* u = NULL;
  st = ptxdwarf_unit_create(5, 8, PTXDWARF_POLICY_CHAPTER6, &u);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT && u == NULL, "DWARF 5: got %s", ptxdwarf_status_name(st));
  EXPECT(strstr(ptxdwarf_last_error(), "DWARF version 5") != NULL, "message: '%s'", ptxdwarf_last_error());
  CHECK(ptxdwarf_unit_create(0, 0, PTXDWARF_POLICY_COMPACT, &u));
  ptxdwarf_die d = 12345;
  st = ptxdwarf_add_die(u, 7, PTXDWARF_DW_TAG_variable, &d);
  EXPECT(st == PTXDWARF_E_BAD_DIE && d == 12345, "got %s", ptxdwarf_status_name(st));
  EXPECT(strstr(ptxdwarf_last_error(), "DIE id 7") != NULL, "message: '%s'", ptxdwarf_last_error());
  CHECK(ptxdwarf_add_die(u, PTXDWARF_ROOT, PTXDWARF_DW_TAG_variable, &d));
  st = ptxdwarf_attach(u, PTXDWARF_ROOT, d);
  EXPECT(st == PTXDWARF_E_INVALID_ARGUMENT, "attached twice: got %s", ptxdwarf_status_name(st));
  CHECK(ptxdwarf_set_attr_unsigned(u, PTXDWARF_ROOT, PTXDWARF_DW_AT_byte_size, 300, PTXDWARF_DW_FORM_data1));
  st = ptxdwarf_encode(u, NULL, &s);
  EXPECT(st == PTXDWARF_E_ENCODE && s == NULL, "got %s", ptxdwarf_status_name(st));
  EXPECT(strstr(ptxdwarf_last_error(), "does not fit DW_FORM_data1") != NULL, "message: '%s'", ptxdwarf_last_error());
  ptxdwarf_unit_free(u);

  const char* bad = ".section .debug_info { .b8 256 }";
  st = ptxdwarf_read_ptx(bad, strlen(bad), "bad.ptx", &s);
  EXPECT(st == PTXDWARF_E_PARSE && s == NULL, "got %s", ptxdwarf_status_name(st));
  EXPECT(strncmp(ptxdwarf_last_error(), "bad.ptx:1:", 10) == 0, "message: '%s'", ptxdwarf_last_error());
}

/* The escape hatch and the other helpers, checked through the bytes. */
static void test_escape_hatch(void) {
  ptxdwarf_unit* u = NULL;
  ptxdwarf_die v, t, list_var;
  ptxdwarf_expr *e, *list, *r1, *r15;
  CHECK(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u));
  ptxdwarf_compile_unit_desc cu = {.name = "a.cu", .omit_low_pc = 1, .omit_stmt_list = 1};
  CHECK(ptxdwarf_compile_unit(u, &cu));
  CHECK(ptxdwarf_base_type(u, PTXDWARF_ROOT, "int", PTXDWARF_DW_ATE_signed, 4, &t));
  CHECK(ptxdwarf_add_die(u, PTXDWARF_ROOT, PTXDWARF_DW_TAG_variable, &v));
  CHECK(ptxdwarf_set_attr_string(u, v, PTXDWARF_DW_AT_name, "buf", 0));
  CHECK(ptxdwarf_set_attr_reference(u, v, PTXDWARF_DW_AT_type, t, 0));
  CHECK(ptxdwarf_set_attr_flag(u, v, PTXDWARF_DW_AT_external, 1, 0));
  CHECK(ptxdwarf_expr_create(8, &e));
  CHECK(ptxdwarf_expr_addr(e, "buf", 16));
  CHECK(ptxdwarf_expr_set_address_class(e, PTXDWARF_ADDR_SHARED_SPACE));
  CHECK(ptxdwarf_set_location(u, v, e));
  CHECK(ptxdwarf_set_attr_signed(u, v, PTXDWARF_DW_AT_const_value, -2, 0));

  CHECK(ptxdwarf_location_register("%r1", 8, &r1));
  CHECK(ptxdwarf_location_register("%r15", 8, &r15));
  CHECK(ptxdwarf_location_list_create(&list));
  CHECK(ptxdwarf_location_list_add(list, "$L__tmp0", "$L__tmp1", r1));
  CHECK(ptxdwarf_location_list_add(list, "$L__tmp1", "$L__func_end0", r15));
  EXPECT(ptxdwarf_expr_op(list, PTXDWARF_DW_OP_nop) == PTXDWARF_E_INVALID_ARGUMENT, "no ops on a list");
  ptxdwarf_variable_desc x = {.name = "x", .type = t, .location = list};
  CHECK(ptxdwarf_variable(u, PTXDWARF_ROOT, &x, &list_var));

  ptxdwarf_encode_options eo = {.no_pubnames = 1};
  ptxdwarf_sections* s = NULL;
  CHECK(ptxdwarf_encode(u, &eo, &s));
  size_t index;
  ptxdwarf_section_info info;
  EXPECT(ptxdwarf_sections_find(s, ".debug_pubnames", &index) == PTXDWARF_E_NOT_FOUND, "no pubnames asked");
  CHECK(ptxdwarf_sections_find(s, ".debug_loc", &index));
  CHECK(ptxdwarf_sections_get(s, index, &info));
  EXPECT(info.relocation_count == 4, "%zu .debug_loc relocations", info.relocation_count);
  CHECK(ptxdwarf_sections_find(s, ".debug_info", &index));
  CHECK(ptxdwarf_sections_get(s, index, &info));
  /* .debug_info relocations: .debug_abbrev, `buf+16` in the DW_OP_addr, .debug_loc for x. */
  const char* want[] = {".debug_abbrev", "buf", ".debug_loc"};
  const int64_t addends[] = {0, 16, 0};
  EXPECT(info.relocation_count == 3, "%zu .debug_info relocations", info.relocation_count);
  for (size_t k = 0; k < 3 && k < info.relocation_count; ++k) {
    ptxdwarf_relocation r;
    CHECK(ptxdwarf_sections_relocation(s, index, k, &r));
    EXPECT(strcmp(r.symbol, want[k]) == 0 && r.addend == addends[k], "relocation %zu: %s%+lld", k, r.symbol,
           (long long)r.addend);
  }
  ptxdwarf_relocation r;
  EXPECT(ptxdwarf_sections_relocation(s, index, 3, &r) == PTXDWARF_E_NOT_FOUND, "index past the end");

  ptxdwarf_sections_free(s);
  ptxdwarf_expr_free(e);
  ptxdwarf_expr_free(list);
  ptxdwarf_expr_free(r1);
  ptxdwarf_expr_free(r15);
  ptxdwarf_unit_free(u);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <fixtures/chapter6.ptx>\n", argv[0]);
    return 2;
  }
  test_chapter6(argv[1]);
  test_errors();
  test_escape_hatch();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C API: Chapter 6 unit matches %s; error paths OK\n", argv[1]);
  return 0;
}
