/* The producer example of docs/library.md (tests/corpus/producer_example.inc) through the
 * C API: a kernel in saxpy.cu with a loop, scale() from scale.h inlined into
 * it, its line table and DWARF, assembled and checked in-process.
 *
 *   ptxdwarf_capi_producer OUT.ptx
 *
 * writes the module to OUT.ptx and exits 0 when every call succeeded and the
 * in-process check found no error or warning; the corpus test (producer_program_test.cpp)
 * compares the text with the C++ build and assembles it with ptxas. Along the
 * way it asserts what the C API promises about errors (a file id outside the
 * table, inlined code below .version 7.2, a decl_file without a .file). */
#include <ptxdwarf/ptxdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    ptxdwarf_status st_ = (call);                                                               \
    if (st_ != PTXDWARF_OK) {                                                                   \
      fprintf(stderr, "%s: %s: %s\n", #call, ptxdwarf_status_name(st_), ptxdwarf_last_error()); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static void code(ptxdwarf_program* p, const char* text) { CHECK(ptxdwarf_program_code(p, text)); }

static void loc(ptxdwarf_program* p, unsigned file, unsigned line, unsigned column) {
  CHECK(ptxdwarf_program_loc(p, file, line, column, NULL, 0, NULL));
}

/* The errors the API reports instead of writing what ptxas would reject. */
static void expectRefusals(void) {
  ptxdwarf_program* p;
  ptxdwarf_program_options old = {0};
  ptxdwarf_inlined_call call = {"_Z1fv", 1, 2, 3};
  unsigned id;
  ptxdwarf_unit* u;
  ptxdwarf_die die;
  char* ptx = NULL;
  old.version_major = 7;
  old.version_minor = 1;
  CHECK(ptxdwarf_program_create(&old, &p));
  CHECK(ptxdwarf_program_add_file(p, "/src/a.cu", &id));
  EXPECT(id == 1);
  EXPECT(ptxdwarf_program_loc(p, 2, 1, 1, NULL, 0, NULL) == PTXDWARF_E_INVALID_ARGUMENT);
  EXPECT(strstr(ptxdwarf_last_error(), "names file id 2, which is not in the file table") != NULL);
  EXPECT(ptxdwarf_program_loc(p, 1, 5, 1, &call, 1, NULL) == PTXDWARF_E_INVALID_ARGUMENT);
  EXPECT(strstr(ptxdwarf_last_error(), "needs PTX .version 7.2 or later; this module is 7.1") != NULL);
  CHECK(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u));
  {
    ptxdwarf_variable_desc v = {0};
    v.name = "x";
    v.decl_file = 2;
    v.decl_line = 1;
    CHECK(ptxdwarf_variable(u, PTXDWARF_ROOT, &v, &die));
  }
  EXPECT(ptxdwarf_program_assemble(p, (const ptxdwarf_unit* const*)&u, 1, NULL, &ptx, NULL) == PTXDWARF_E_ASSEMBLE);
  EXPECT(ptx == NULL);
  EXPECT(strstr(ptxdwarf_last_error(), "DW_AT_decl_file 2 of DIE 1 (unit 0) is not in the file table") != NULL);
  ptxdwarf_unit_free(u);
  ptxdwarf_program_free(p);
}

/* ptxdwarf_annotate: a kernel without debug information gets .file/.loc and DWARF. */
static void expectAnnotate(void) {
  const char* in =
      ".version 7.5\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 k_out)\n{\n"
      "\t.reg .b32 %r<2>;\n\t.reg .b32 %too_long_name;\n\tmov.u32 %r1, %tid.x;\n\tret;\n}\n";
  ptxdwarf_annotate_options o = {"k.ptx", 0, 0, 0};
  char* out = NULL;
  ptxdwarf_diagnostics* warnings = NULL;
  ptxdwarf_diagnostic w;
  const char* with_info = ".version 7.5\n.target sm_80\n.section .debug_info { .b8 0 }\n";
  CHECK(ptxdwarf_annotate(in, strlen(in), "k.ptx", &o, &out, &warnings));
  EXPECT(strstr(out, ".target sm_80, debug\n.address_size 64\n.file\t1 \"k.ptx\"\n") != NULL);
  EXPECT(strstr(out, "\t.loc\t1 9 2\n\tmov.u32 %r1, %tid.x;\n") != NULL);
  EXPECT(strstr(out, "\t.section\t.debug_info\n") != NULL);
  EXPECT(ptxdwarf_diagnostics_count(warnings) == 1);
  CHECK(ptxdwarf_diagnostics_get(warnings, 0, &w));
  EXPECT(w.severity == PTXDWARF_SEVERITY_WARNING && w.line == 8);
  EXPECT(strstr(w.message, "%too_long_name") != NULL);
  ptxdwarf_diagnostics_free(warnings);
  ptxdwarf_string_free(out);
  /* Annotating the result again is refused: it has .debug_info now. */
  out = NULL;
  EXPECT(ptxdwarf_annotate(with_info, strlen(with_info), NULL, NULL, &out, NULL) == PTXDWARF_E_ASSEMBLE);
  EXPECT(out == NULL);
  EXPECT(strstr(ptxdwarf_last_error(), "already has .debug_info") != NULL);
}

int main(int argc, char** argv) {
  ptxdwarf_program* p;
  ptxdwarf_program_options po = {0};
  unsigned saxpy_cu, scale_h;
  const char *fn_begin, *fn_end, *loop_end, *loop_begin, *inline_begin, *inline_end;
  ptxdwarf_inlined_call in_scale;
  ptxdwarf_unit* u;
  ptxdwarf_die int_t, float_type, float_ptr, scale, saxpy, loop, die;
  char* ptx;
  ptxdwarf_diagnostics* found;
  size_t k, problems;
  FILE* out;

  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.ptx\n", argv[0]);
    return 2;
  }
  expectRefusals();
  expectAnnotate();

  po.version_major = 7;
  po.version_minor = 5;
  po.target = "sm_80";
  CHECK(ptxdwarf_program_create(&po, &p));
  CHECK(ptxdwarf_program_add_file(p, "/src/saxpy/saxpy.cu", &saxpy_cu));
  CHECK(ptxdwarf_program_add_file(p, "/src/saxpy/scale.h", &scale_h));
  in_scale.function = "_Z5scaleff";
  in_scale.call_file = saxpy_cu;
  in_scale.call_line = 5;
  in_scale.call_column = 12;

  code(p,
       ".visible .entry _Z5saxpyifPKfPf(\n"
       "\t.param .u32 saxpy_n, .param .f32 saxpy_a, .param .u64 saxpy_x, .param .u64 saxpy_y)\n"
       "{\n"
       "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .f32 %f<7>;\n\t.reg .b64 %rd<6>;\n");
  CHECK(ptxdwarf_program_begin_function(p, &fn_begin, &fn_end));
  loc(p, saxpy_cu, 3, 0);
  code(p,
       "\tld.param.u32 %r1, [saxpy_n];\n\tld.param.f32 %f1, [saxpy_a];\n"
       "\tld.param.u64 %rd1, [saxpy_x];\n\tld.param.u64 %rd2, [saxpy_y];\n");
  loc(p, saxpy_cu, 4, 16);
  code(p, "\tmov.u32 %r2, %tid.x;\n");
  CHECK(ptxdwarf_program_new_label(p, &loop_end));
  loc(p, saxpy_cu, 4, 33);
  code(p, "\tsetp.ge.s32 %p1, %r2, %r1;\n\t@%p1 bra ");
  code(p, loop_end);
  code(p, ";\n");
  CHECK(ptxdwarf_program_label(p, &loop_begin));
  loc(p, saxpy_cu, 5, 12);
  code(p, "\tmul.wide.s32 %rd3, %r2, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tld.global.f32 %f2, [%rd4];\n");
  CHECK(ptxdwarf_program_label(p, &inline_begin));
  CHECK(ptxdwarf_program_loc(p, scale_h, 2, 13, &in_scale, 1, NULL));
  code(p, "\tmul.f32 %f3, %f1, %f2;\n");
  CHECK(ptxdwarf_program_loc(p, scale_h, 3, 3, &in_scale, 1, NULL));
  code(p, "\tmov.f32 %f4, %f3;\n");
  CHECK(ptxdwarf_program_label(p, &inline_end));
  loc(p, saxpy_cu, 5, 29);
  code(p, "\tadd.s64 %rd5, %rd2, %rd3;\n\tld.global.f32 %f5, [%rd5];\n");
  loc(p, saxpy_cu, 5, 27);
  code(p, "\tadd.f32 %f6, %f4, %f5;\n");
  loc(p, saxpy_cu, 5, 10);
  code(p, "\tst.global.f32 [%rd5], %f6;\n");
  loc(p, saxpy_cu, 4, 40);
  code(p, "\tadd.s32 %r2, %r2, 32;\n");
  loc(p, saxpy_cu, 4, 33);
  code(p, "\tsetp.lt.s32 %p1, %r2, %r1;\n\t@%p1 bra ");
  code(p, loop_begin);
  code(p, ";\n");
  CHECK(ptxdwarf_program_place_label(p, loop_end));
  loc(p, saxpy_cu, 6, 1);
  code(p, "\tret;\n");
  CHECK(ptxdwarf_program_end_function(p));
  code(p, "}\n");

  /* The DWARF: decl and call files are the ids the program handed out. */
  CHECK(ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u));
  {
    ptxdwarf_compile_unit_desc cu = {0};
    cu.producer = "ptxdwarf example";
    cu.name = "saxpy.cu";
    cu.comp_dir = "/src/saxpy";
    CHECK(ptxdwarf_compile_unit(u, &cu));
  }
  CHECK(ptxdwarf_base_type(u, PTXDWARF_ROOT, "int", PTXDWARF_DW_ATE_signed, 4, &int_t));
  CHECK(ptxdwarf_base_type(u, PTXDWARF_ROOT, "float", PTXDWARF_DW_ATE_float, 4, &float_type));
  CHECK(ptxdwarf_pointer_type(u, PTXDWARF_ROOT, float_type, PTXDWARF_ADDR_GENERIC_SPACE, &float_ptr));
  {
    ptxdwarf_subprogram_desc d = {0};
    ptxdwarf_variable_desc v = {0};
    d.name = "scale";
    d.linkage_name = "_Z5scaleff";
    d.decl_file = scale_h;
    d.decl_line = 1;
    d.type = float_type;
    d.internal = 1;
    d.no_frame_base = 1;
    CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &d, &scale));
    CHECK(ptxdwarf_set_attr_unsigned(u, scale, PTXDWARF_DW_AT_inline, PTXDWARF_DW_INL_inlined, 0));
    v.decl_file = scale_h;
    v.decl_line = 1;
    v.type = float_type;
    v.name = "a";
    CHECK(ptxdwarf_formal_parameter(u, scale, &v, &die));
    v.name = "v";
    CHECK(ptxdwarf_formal_parameter(u, scale, &v, &die));
    v.name = "r";
    v.decl_line = 2;
    CHECK(ptxdwarf_variable(u, scale, &v, &die));
  }
  {
    ptxdwarf_subprogram_desc d = {0};
    const char* names[4] = {"n", "a", "x", "y"};
    ptxdwarf_die types[4];
    ptxdwarf_expr* reg;
    ptxdwarf_variable_desc i = {0};
    types[0] = int_t;
    types[1] = float_type;
    types[2] = float_ptr;
    types[3] = float_ptr;
    d.name = "saxpy";
    d.linkage_name = "_Z5saxpyifPKfPf";
    d.decl_file = saxpy_cu;
    d.decl_line = 2;
    d.low_pc = fn_begin;
    d.high_pc = fn_end;
    CHECK(ptxdwarf_subprogram(u, PTXDWARF_ROOT, &d, &saxpy));
    for (k = 0; k < 4; ++k) {
      char symbol[16];
      ptxdwarf_expr* where;
      ptxdwarf_variable_desc v = {0};
      snprintf(symbol, sizeof symbol, "saxpy_%s", names[k]);
      CHECK(ptxdwarf_location_symbol(symbol, 0, PTXDWARF_SPACE_PARAM, 8, &where));
      v.name = names[k];
      v.decl_file = saxpy_cu;
      v.decl_line = 2;
      v.type = types[k];
      v.location = where;
      CHECK(ptxdwarf_formal_parameter(u, saxpy, &v, &die));
      ptxdwarf_expr_free(where);
    }
    CHECK(ptxdwarf_location_register("%r2", 8, &reg));
    i.name = "i";
    i.decl_file = saxpy_cu;
    i.decl_line = 4;
    i.type = int_t;
    i.location = reg;
    CHECK(ptxdwarf_variable(u, saxpy, &i, &die));
    ptxdwarf_expr_free(reg);
  }
  CHECK(ptxdwarf_lexical_block(u, saxpy, loop_begin, loop_end, &loop));
  CHECK(ptxdwarf_inlined_subroutine(u, loop, scale, inline_begin, inline_end, saxpy_cu, 5, &die));

  {
    ptxdwarf_assemble_options ao = {PTXDWARF_STYLE_PACKED, NULL, 1, "saxpy.ptx"};
    CHECK(ptxdwarf_program_assemble(p, (const ptxdwarf_unit* const*)&u, 1, &ao, &ptx, &found));
  }
  problems = 0;
  for (k = 0; k < ptxdwarf_diagnostics_count(found); ++k) {
    char* line;
    ptxdwarf_diagnostic d;
    CHECK(ptxdwarf_diagnostics_get(found, k, &d));
    if (d.severity != PTXDWARF_SEVERITY_NOTE) ++problems; /* notes say which convention a field follows */
    CHECK(ptxdwarf_diagnostics_format(found, k, "saxpy.ptx", &line));
    fprintf(stderr, "%s\n", line);
    ptxdwarf_string_free(line);
  }
  out = fopen(argv[1], "wb");
  if (!out || fputs(ptx, out) < 0 || fclose(out) != 0) {
    fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  ptxdwarf_diagnostics_free(found);
  ptxdwarf_string_free(ptx);
  ptxdwarf_unit_free(u);
  ptxdwarf_program_free(p);
  return problems == 0 ? 0 : 1;
}
