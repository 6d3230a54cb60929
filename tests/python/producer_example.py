"""A producer's whole module, from Python: a kernel with a loop (saxpy.cu),
scale() from scale.h inlined into it, its line table and its DWARF -- the
module tests/corpus/producer_example.inc builds in C++.

  saxpy.cu                                       scale.h
  1 #include "scale.h"                           1 __device__ inline float scale(float a, float v) {
  2 __global__ void saxpy(int n, float a,        2   float r = a * v;
  3                       const float* x,        3   return r;
                          float* y) {            4 }
  4   for (int i = threadIdx.x; i < n; i += 32)
  5     y[i] = scale(a, x[i]) + y[i];
  6 }
"""
import ptxdwarf

SAXPY, SCALE = "/src/saxpy/saxpy.cu", "/src/saxpy/scale.h"
DW_ATE_signed, DW_ATE_float = 0x05, 0x04


def build_saxpy(check=True):
    """(program, builder, requests): requests are the (file, line, column, call sites) asked for, in order."""
    p = ptxdwarf.Program(version="7.5", target="sm_80")
    saxpy_cu, scale_h = p.add_file(SAXPY), p.add_file(SCALE)
    in_scale = [("_Z5scaleff", saxpy_cu, 5, 12)]  # scale() called at saxpy.cu 5:12
    requests = []

    def loc(file, line, column, inlined=()):
        requests.append(((SAXPY, SCALE)[file - 1], line, column,
                         [((SAXPY, SCALE)[f - 1], l, c) for _, f, l, c in inlined]))
        p.loc(file, line, column, inlined)

    p.code(".visible .entry _Z5saxpyifPKfPf(\n"
           "\t.param .u32 saxpy_n, .param .f32 saxpy_a, .param .u64 saxpy_x, .param .u64 saxpy_y)\n"
           "{\n"
           "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .f32 %f<7>;\n\t.reg .b64 %rd<6>;\n")
    begin, end = p.begin_function()
    loc(saxpy_cu, 3, 0)
    p.code("\tld.param.u32 %r1, [saxpy_n];\n\tld.param.f32 %f1, [saxpy_a];\n"
           "\tld.param.u64 %rd1, [saxpy_x];\n\tld.param.u64 %rd2, [saxpy_y];\n")
    loc(saxpy_cu, 4, 16)
    p.code("\tmov.u32 %r2, %tid.x;\n")
    loop_end = p.new_label()  # a forward branch target
    loc(saxpy_cu, 4, 33)
    p.code("\tsetp.ge.s32 %p1, %r2, %r1;\n\t@%p1 bra " + loop_end + ";\n")
    loop_begin = p.label()  # the loop body: a lexical block, and the back edge's target
    loc(saxpy_cu, 5, 12)
    p.code("\tmul.wide.s32 %rd3, %r2, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tld.global.f32 %f2, [%rd4];\n")
    inline_begin = p.label()
    loc(scale_h, 2, 13, in_scale)
    p.code("\tmul.f32 %f3, %f1, %f2;\n")
    loc(scale_h, 3, 3, in_scale)
    p.code("\tmov.f32 %f4, %f3;\n")
    inline_end = p.label()
    loc(saxpy_cu, 5, 29)
    p.code("\tadd.s64 %rd5, %rd2, %rd3;\n\tld.global.f32 %f5, [%rd5];\n")
    loc(saxpy_cu, 5, 27)
    p.code("\tadd.f32 %f6, %f4, %f5;\n")
    loc(saxpy_cu, 5, 10)
    p.code("\tst.global.f32 [%rd5], %f6;\n")
    loc(saxpy_cu, 4, 40)
    p.code("\tadd.s32 %r2, %r2, 32;\n")
    loc(saxpy_cu, 4, 33)
    p.code("\tsetp.lt.s32 %p1, %r2, %r1;\n\t@%p1 bra " + loop_begin + ";\n")
    p.place(loop_end)
    loc(saxpy_cu, 6, 1)
    p.code("\tret;\n")
    p.end_function()
    p.code("}\n")

    # The DWARF: decl and call files are the ids the file table handed out.
    b = ptxdwarf.Builder()
    b.compile_unit(producer="ptxdwarf example", name="saxpy.cu", comp_dir="/src/saxpy")
    int_t = b.base_type("int", DW_ATE_signed, 4)
    float_t = b.base_type("float", DW_ATE_float, 4)
    float_ptr = b.pointer_type(float_t)
    scale = b.subprogram(name="scale", linkage_name="_Z5scaleff", decl_file=scale_h, decl_line=1, type=float_t,
                         external=False, frame_base_cfa=False, inlined=True)
    b.formal_parameter(scale, "a", decl_file=scale_h, decl_line=1, type=float_t)
    b.formal_parameter(scale, "v", decl_file=scale_h, decl_line=1, type=float_t)
    b.variable(scale, "r", decl_file=scale_h, decl_line=2, type=float_t)
    saxpy = b.subprogram(name="saxpy", linkage_name="_Z5saxpyifPKfPf", decl_file=saxpy_cu, decl_line=2,
                         low_pc=begin, high_pc=end)
    for name, type_ in (("n", int_t), ("a", float_t), ("x", float_ptr), ("y", float_ptr)):
        b.formal_parameter(saxpy, name, decl_file=saxpy_cu, decl_line=2, type=type_,
                           location=ptxdwarf.Location.symbol("saxpy_" + name, space="param"))
    b.variable(saxpy, "i", decl_file=saxpy_cu, decl_line=4, type=int_t, location=ptxdwarf.Location.register("%r2"))
    loop = b.lexical_block(saxpy, loop_begin, loop_end)
    b.inlined_subroutine(loop, scale, inline_begin, inline_end, call_file=saxpy_cu, call_line=5)
    return p, b, requests
