/* ptxdwarf C API: build DWARF for PTX from C (or any language with a C FFI).
 *
 * A thin layer over the C++ producer API (ptxdwarf/write/unit.h, builder.h,
 * encode.h, ptx_writer.h). C99; no C++ in this header.
 *
 * Conventions
 *  - Every function that can fail returns a ptxdwarf_status. On failure its
 *    out-parameters are left unchanged and ptxdwarf_last_error() holds a
 *    message naming the problem (per thread, valid until the next ptxdwarf_*
 *    call that returns a status on the same thread). No exception, signal or
 *    abort crosses this boundary.
 *  - Handles are opaque. Every object the library allocates has a free
 *    function; free functions accept NULL. A handle may be used by one thread
 *    at a time; different handles are independent.
 *  - Strings are NUL-terminated UTF-8 and are copied: the caller keeps
 *    ownership of what it passes in. Strings and byte arrays the library hands
 *    out live as long as the handle they came from.
 *  - DIEs are named by ids (ptxdwarf_die) inside their unit. References may
 *    point forward; abbreviations and offsets are the encoder's business.
 *  - Description structs are meant to be zero-initialized (C99 designated
 *    initializers): every field's zero value is the Chapter 6 / nvcc default,
 *    documented next to it.
 *
 * The Chapter 6 example of the PTX interoperability guide, from C:
 *
 *   ptxdwarf_unit* u;
 *   ptxdwarf_die int_t, foo, p;
 *   ptxdwarf_expr* r1;
 *   ptxdwarf_unit_create(2, 8, PTXDWARF_POLICY_CHAPTER6, &u);
 *   ptxdwarf_compile_unit_desc cu = {.producer = "lgenfe: EDG 4.9", .name = "call1.cu",
 *                                    .comp_dir = "/home/mmurphy/test"};
 *   ptxdwarf_compile_unit(u, &cu);
 *   ptxdwarf_base_type(u, PTXDWARF_DETACHED, "int", PTXDWARF_DW_ATE_signed, 4, &int_t);
 *   ptxdwarf_subprogram_desc sp = {.name = "_Z3fooii", .linkage_name = "_Z3fooii", .decl_file = 1,
 *                                  .decl_line = 1, .type = int_t, .low_pc = "func_begin0",
 *                                  .high_pc = "func_end0"};
 *   ptxdwarf_subprogram(u, PTXDWARF_ROOT, &sp, &foo);
 *   ptxdwarf_location_register("%r1", 8, &r1);
 *   ptxdwarf_variable_desc i = {.name = "i", .decl_file = 1, .decl_line = 1, .type = int_t,
 *                               .location = r1};
 *   ptxdwarf_formal_parameter(u, foo, &i, &p);
 *   ptxdwarf_attach(u, PTXDWARF_ROOT, int_t);
 *   ...
 *   ptxdwarf_sections* s;
 *   ptxdwarf_encode(u, NULL, &s);
 *   char* text;
 *   ptxdwarf_render_ptx(s, NULL, &text);   (the `.section .debug_info { ... }` blocks)
 *   ptxdwarf_string_free(text); ptxdwarf_sections_free(s); ptxdwarf_expr_free(r1);
 *   ptxdwarf_unit_free(u);
 */
#ifndef PTXDWARF_PTXDWARF_H
#define PTXDWARF_PTXDWARF_H

#include <stddef.h>
#include <stdint.h>

/* Marks the exported functions; define it before including to override. */
#ifndef PTXDWARF_API
#if defined(__GNUC__)
#define PTXDWARF_API __attribute__((visibility("default")))
#else
#define PTXDWARF_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ---------------------------------------------------- */

typedef enum {
  PTXDWARF_OK = 0,
  PTXDWARF_E_INVALID_ARGUMENT, /* NULL handle or pointer, bad enum value, misuse of the builder */
  PTXDWARF_E_BAD_REGISTER,     /* a PTX register name cuda-gdb cannot read ("r1", more than 8 bytes) */
  PTXDWARF_E_BAD_DIE,          /* a DIE id that does not belong to the unit */
  PTXDWARF_E_ENCODE,           /* the encoder reported errors (value too large for a pinned form, ...) */
  PTXDWARF_E_PARSE,            /* ptxdwarf_read_ptx: the text has syntax errors */
  PTXDWARF_E_RENDER,           /* ptxdwarf_render_ptx: the sections cannot be written for that PTX version */
  PTXDWARF_E_NOT_FOUND,        /* no section of that name; index out of range */
  PTXDWARF_E_NO_MEMORY,
  PTXDWARF_E_INTERNAL, /* a bug in ptxdwarf: please report the message */
  PTXDWARF_E_ASSEMBLE  /* ptxdwarf_program_assemble: the module cannot be assembled (see the message) */
} ptxdwarf_status;

/* The message of the last failure on the calling thread; "" when the last
 * status-returning call succeeded. Never NULL. */
PTXDWARF_API const char* ptxdwarf_last_error(void);
/* "PTXDWARF_OK", "PTXDWARF_E_BAD_REGISTER", ...; "PTXDWARF_E_UNKNOWN" otherwise. */
PTXDWARF_API const char* ptxdwarf_status_name(ptxdwarf_status status);

/* ---- DWARF and CUDA constants --------------------------------------------- */

/* PTXDWARF_DW_TAG_compile_unit, PTXDWARF_DW_AT_name, PTXDWARF_DW_FORM_data4,
 * PTXDWARF_DW_OP_regx, PTXDWARF_DW_LANG_C_plus_plus, PTXDWARF_DW_ATE_signed, ...:
 * generated from the same table as the C++ names (ptxdwarf/dwarf.def). The
 * PTXDWARF_ prefix keeps them apart from libdwarf's DW_* macros. */
enum ptxdwarf_dw_tag {
#define PTXDWARF_DW_TAG(name, value) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_at {
#define PTXDWARF_DW_AT(name, value) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_form {
#define PTXDWARF_DW_FORM(name, value, class) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_op {
#define PTXDWARF_DW_OP(name, value, a, b) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_lang {
#define PTXDWARF_DW_LANG(name, value) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_ate {
#define PTXDWARF_DW_ATE(name, value) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};
enum ptxdwarf_dw_inl {
#define PTXDWARF_DW_INL(name, value) PTXDWARF_##name = value,
#include "ptxdwarf/dwarf.def"
};

/* DW_AT_address_class values (PTX interoperability guide, ch. 5.2). */
enum ptxdwarf_address_class {
  PTXDWARF_ADDR_NONE = 0, /* as an argument: no DW_AT_address_class */
  PTXDWARF_ADDR_CODE_SPACE = 1,
  PTXDWARF_ADDR_REG_SPACE = 2,
  PTXDWARF_ADDR_SREG_SPACE = 3,
  PTXDWARF_ADDR_CONST_SPACE = 4,
  PTXDWARF_ADDR_GLOBAL_SPACE = 5,
  PTXDWARF_ADDR_LOCAL_SPACE = 6,
  PTXDWARF_ADDR_PARAM_SPACE = 7,
  PTXDWARF_ADDR_SHARED_SPACE = 8,
  PTXDWARF_ADDR_SURF_SPACE = 9,
  PTXDWARF_ADDR_TEX_SPACE = 10,
  PTXDWARF_ADDR_TEX_SAMPLER_SPACE = 11,
  PTXDWARF_ADDR_GENERIC_SPACE = 12
};

/* PTX state spaces; a symbol's location takes its address class from its space. */
typedef enum {
  PTXDWARF_SPACE_NONE = 0,
  PTXDWARF_SPACE_REG,
  PTXDWARF_SPACE_SREG,
  PTXDWARF_SPACE_CONST,
  PTXDWARF_SPACE_GLOBAL,
  PTXDWARF_SPACE_LOCAL,
  PTXDWARF_SPACE_PARAM,
  PTXDWARF_SPACE_SHARED,
  PTXDWARF_SPACE_TEX,
  PTXDWARF_SPACE_SURF,
  PTXDWARF_SPACE_SAMPLER,
  PTXDWARF_SPACE_GENERIC
} ptxdwarf_space;

/* The DW_AT_address_class of a state space (0 for NONE or an unknown value). */
PTXDWARF_API uint8_t ptxdwarf_address_class_of(ptxdwarf_space space);

/* ---- Units and DIEs -------------------------------------------------------- */

typedef struct ptxdwarf_unit ptxdwarf_unit;
typedef uint32_t ptxdwarf_die;

#define PTXDWARF_ROOT ((ptxdwarf_die)0)                    /* the compile unit DIE */
#define PTXDWARF_NO_DIE ((ptxdwarf_die)UINT32_MAX)         /* "none" (no type, ...) */
#define PTXDWARF_DETACHED ((ptxdwarf_die)(UINT32_MAX - 1)) /* as a parent: outside the tree, see ptxdwarf_attach */

typedef enum {
  PTXDWARF_POLICY_CHAPTER6 = 0, /* the guide's example: data4 decl file/line, ref4, inline strings */
  PTXDWARF_POLICY_COMPACT = 1   /* smallest data form that fits each constant */
} ptxdwarf_form_policy;

/* A new unit whose root is a DW_TAG_compile_unit. version: 2, 3 or 4 (0 means 2);
 * address_size: 4 or 8 (0 means 8). */
PTXDWARF_API ptxdwarf_status ptxdwarf_unit_create(uint16_t version, uint8_t address_size, ptxdwarf_form_policy policy,
                                                  ptxdwarf_unit** out);
PTXDWARF_API void ptxdwarf_unit_free(ptxdwarf_unit* unit);
/* Number of DIEs in the unit (ids are 0 .. count-1); 0 for NULL. */
PTXDWARF_API size_t ptxdwarf_unit_die_count(const ptxdwarf_unit* unit);

/* A bare DIE, last among parent's children (PTXDWARF_DETACHED: outside the tree). */
PTXDWARF_API ptxdwarf_status ptxdwarf_add_die(ptxdwarf_unit* unit, ptxdwarf_die parent, uint16_t tag,
                                              ptxdwarf_die* out);
/* Places a detached DIE last among parent's children. */
PTXDWARF_API ptxdwarf_status ptxdwarf_attach(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die child);
/* DW_CHILDREN_yes even when the DIE has no children (nonzero) or not (0). */
PTXDWARF_API ptxdwarf_status ptxdwarf_force_children(ptxdwarf_unit* unit, ptxdwarf_die die, int force);

/* ---- Expressions and locations -------------------------------------------- */

/* A DWARF expression (bytes, possibly with symbolic operands) plus the
 * DW_AT_address_class that goes with it when used as a location; or a
 * location list (ptxdwarf_location_list_create). */
typedef struct ptxdwarf_expr ptxdwarf_expr;

/* An empty expression (address class 0). address_size: 4 or 8 (0 means 8). */
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_create(uint8_t address_size, ptxdwarf_expr** out);
PTXDWARF_API void ptxdwarf_expr_free(ptxdwarf_expr* expr);

/* A PTX register: DW_OP_regx with the name's bytes packed as cuda-gdb expects
 * ("%r1" -> 0x257231), ADDR_reg_space. PTXDWARF_E_BAD_REGISTER when the name
 * lacks the leading '%' or is longer than 8 bytes. */
PTXDWARF_API ptxdwarf_status ptxdwarf_location_register(const char* ptx_register, uint8_t address_size,
                                                        ptxdwarf_expr** out);
/* A symbol (+ addend) in a state space: DW_OP_addr symbol, the space's class
 * (.global 5, .shared 8, .const 4, .local 6, .param 7, ...). */
PTXDWARF_API ptxdwarf_status ptxdwarf_location_symbol(const char* symbol, int64_t addend, ptxdwarf_space space,
                                                      uint8_t address_size, ptxdwarf_expr** out);
/* DW_OP_fbreg offset with the given class (PTXDWARF_ADDR_LOCAL_SPACE usually). */
PTXDWARF_API ptxdwarf_status ptxdwarf_location_frame_offset(int64_t offset, uint8_t address_class, ptxdwarf_expr** out);
/* An empty location list; fill it with ptxdwarf_location_list_add. */
PTXDWARF_API ptxdwarf_status ptxdwarf_location_list_create(ptxdwarf_expr** out);
/* Adds the range [begin, end) (PTX labels) where `location` (an expression) holds.
 * The list's class is its ranges' class when they all agree, 0 otherwise. */
PTXDWARF_API ptxdwarf_status ptxdwarf_location_list_add(ptxdwarf_expr* list, const char* begin_label,
                                                        const char* end_label, const ptxdwarf_expr* location);

/* Appending to an expression (not to a list). */
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_op(ptxdwarf_expr* expr, uint8_t opcode);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_u8(ptxdwarf_expr* expr, uint8_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_u16(ptxdwarf_expr* expr, uint16_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_u32(ptxdwarf_expr* expr, uint32_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_u64(ptxdwarf_expr* expr, uint64_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_uleb(ptxdwarf_expr* expr, uint64_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_sleb(ptxdwarf_expr* expr, int64_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_regx(ptxdwarf_expr* expr, const char* ptx_register);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_bregx(ptxdwarf_expr* expr, const char* ptx_register, int64_t offset);
/* DW_OP_addr symbol+addend (address-sized, relocated); symbol NULL or "": the number `addend`. */
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_addr(ptxdwarf_expr* expr, const char* symbol, int64_t addend);
/* A symbolic operand of `size` bytes (4 or 8): zero bytes plus a relocation. */
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_symbolic(ptxdwarf_expr* expr, const char* symbol, int64_t addend,
                                                    uint8_t size);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_fbreg(ptxdwarf_expr* expr, int64_t offset);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_plus_uconst(ptxdwarf_expr* expr, uint64_t value);
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_call_frame_cfa(ptxdwarf_expr* expr);
/* The DW_AT_address_class written with this location (0: none). */
PTXDWARF_API ptxdwarf_status ptxdwarf_expr_set_address_class(ptxdwarf_expr* expr, uint8_t address_class);
/* The bytes so far (symbolic operands zero-filled); *size 0 and NULL for a list. */
PTXDWARF_API const uint8_t* ptxdwarf_expr_bytes(const ptxdwarf_expr* expr, size_t* size);
PTXDWARF_API uint8_t ptxdwarf_expr_address_class(const ptxdwarf_expr* expr);

/* ---- Semantic helpers (attributes in the order the Chapter 6 example has) -- */

typedef struct {
  const char* producer; /* NULL: no DW_AT_producer */
  uint16_t language;    /* 0: DW_LANG_C_plus_plus (nvcc describes CUDA so) */
  const char* name;     /* NULL: no DW_AT_name */
  const char* low_pc;   /* NULL: `.b64 0` as in the example; a label name otherwise */
  int omit_low_pc;      /* nonzero: no DW_AT_low_pc */
  int omit_stmt_list;   /* nonzero: no DW_AT_stmt_list (.debug_line, which ptxas makes) */
  const char* comp_dir; /* NULL: no DW_AT_comp_dir */
} ptxdwarf_compile_unit_desc;

typedef struct {
  const char* name;              /* NULL: no DW_AT_name */
  const char* linkage_name;      /* the PTX function name (cuda-gdb finds registers through it) */
  unsigned decl_file, decl_line; /* decl_file 0: neither attribute */
  ptxdwarf_die type;             /* return type; 0 or PTXDWARF_NO_DIE: none (void) */
  int internal;                  /* nonzero: no DW_AT_external */
  const char* low_pc;            /* PTX labels around the body; NULL: none */
  const char* high_pc;
  int no_frame_base;           /* nonzero: no DW_AT_frame_base DW_OP_call_frame_cfa */
  int linkage_name_after_name; /* nonzero: DW_AT_name first (the example has the linkage name first) */
  uint16_t linkage_attribute;  /* 0: DW_AT_MIPS_linkage_name (nvcc); or PTXDWARF_DW_AT_linkage_name */
} ptxdwarf_subprogram_desc;

typedef struct {
  const char* name;
  unsigned decl_file, decl_line; /* decl_file 0: neither attribute */
  ptxdwarf_die type;             /* 0 or PTXDWARF_NO_DIE: none */
  const ptxdwarf_expr* location; /* NULL: no DW_AT_location / DW_AT_address_class */
  int external;                  /* nonzero: DW_AT_external */
  const char* linkage_name;      /* NULL: none (DW_AT_MIPS_linkage_name) */
} ptxdwarf_variable_desc;

/* Sets the attributes of the unit DIE (PTXDWARF_ROOT). */
PTXDWARF_API ptxdwarf_status ptxdwarf_compile_unit(ptxdwarf_unit* unit, const ptxdwarf_compile_unit_desc* desc);
PTXDWARF_API ptxdwarf_status ptxdwarf_subprogram(ptxdwarf_unit* unit, ptxdwarf_die parent,
                                                 const ptxdwarf_subprogram_desc* desc, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_formal_parameter(ptxdwarf_unit* unit, ptxdwarf_die subprogram,
                                                       const ptxdwarf_variable_desc* desc, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_variable(ptxdwarf_unit* unit, ptxdwarf_die scope,
                                               const ptxdwarf_variable_desc* desc, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_lexical_block(ptxdwarf_unit* unit, ptxdwarf_die scope, const char* begin_label,
                                                    const char* end_label, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_inlined_subroutine(ptxdwarf_unit* unit, ptxdwarf_die scope, ptxdwarf_die origin,
                                                         const char* begin_label, const char* end_label,
                                                         unsigned call_file, unsigned call_line, ptxdwarf_die* out);

/* Types. `parent` is PTXDWARF_ROOT, a scope, or PTXDWARF_DETACHED (declare now,
 * ptxdwarf_attach where the output wants it). */
PTXDWARF_API ptxdwarf_status ptxdwarf_base_type(ptxdwarf_unit* unit, ptxdwarf_die parent, const char* name,
                                                uint8_t encoding, uint64_t byte_size, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_unspecified_type(ptxdwarf_unit* unit, ptxdwarf_die parent, const char* name,
                                                       ptxdwarf_die* out);
/* address_class: the space pointed into (PTXDWARF_ADDR_GENERIC_SPACE usually; 0: none). */
PTXDWARF_API ptxdwarf_status ptxdwarf_pointer_type(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die pointee,
                                                   uint8_t address_class, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_reference_type(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die pointee,
                                                     ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_const_type(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die type,
                                                 ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_volatile_type(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die type,
                                                    ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_typedef(ptxdwarf_unit* unit, ptxdwarf_die parent, const char* name,
                                              ptxdwarf_die type, ptxdwarf_die* out);
/* tag: PTXDWARF_DW_TAG_structure_type, _class_type or _union_type. */
PTXDWARF_API ptxdwarf_status ptxdwarf_aggregate(ptxdwarf_unit* unit, ptxdwarf_die parent, uint16_t tag,
                                                const char* name, uint64_t byte_size, ptxdwarf_die* out);
/* A data member at byte `offset` of the aggregate. */
PTXDWARF_API ptxdwarf_status ptxdwarf_member(ptxdwarf_unit* unit, ptxdwarf_die aggregate, const char* name,
                                             ptxdwarf_die type, uint64_t offset, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_array_type(ptxdwarf_unit* unit, ptxdwarf_die parent, ptxdwarf_die element,
                                                 ptxdwarf_die* out);
/* A dimension of `count` elements indexed by index_type (0 or PTXDWARF_NO_DIE: none). */
PTXDWARF_API ptxdwarf_status ptxdwarf_subrange(ptxdwarf_unit* unit, ptxdwarf_die array, uint64_t count,
                                               ptxdwarf_die index_type, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_enumeration(ptxdwarf_unit* unit, ptxdwarf_die parent, const char* name,
                                                  uint64_t byte_size, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_enumerator(ptxdwarf_unit* unit, ptxdwarf_die enumeration, const char* name,
                                                 int64_t value, ptxdwarf_die* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_subroutine_type(ptxdwarf_unit* unit, ptxdwarf_die parent,
                                                      ptxdwarf_die return_type, const ptxdwarf_die* parameters,
                                                      size_t parameter_count, ptxdwarf_die* out);

/* ---- Attributes: the escape hatch ------------------------------------------
 * Sets (or replaces) attribute `name` of `die`; attributes keep the order in
 * which they were first set. `form` 0 lets the unit's policy choose; a pinned
 * form the value does not fit is reported by ptxdwarf_encode. */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_unsigned(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                        uint64_t value, uint16_t form);
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_signed(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                      int64_t value, uint16_t form);
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_flag(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name, int value,
                                                    uint16_t form);
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_string(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                      const char* value, uint16_t form);
/* A reference to another DIE of the same unit (may be created later than `die`). */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_reference(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                         ptxdwarf_die target, uint16_t form);
/* An address: `.b64 symbol+addend` (symbol NULL or "": the number `addend`). */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_address(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                       const char* symbol, int64_t addend, uint16_t form);
/* An offset into another section: `.b32 symbol+addend` (".debug_line", ".debug_loc+138"). */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_section_offset(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                              const char* symbol, int64_t addend, uint16_t form);
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_block(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                     const uint8_t* bytes, size_t size, uint16_t form);
/* An expression (its bytes and symbolic operands) as a block; the address class is not written. */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_attr_expr(ptxdwarf_unit* unit, ptxdwarf_die die, uint16_t name,
                                                    const ptxdwarf_expr* expr, uint16_t form);
/* DW_AT_location from an expression or a location list, plus DW_AT_address_class
 * when the location has one (what the variable helpers do). */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_location(ptxdwarf_unit* unit, ptxdwarf_die die,
                                                   const ptxdwarf_expr* location);

/* The .debug_pubnames entries, replacing the derived ones (external
 * subprograms and variables directly under the unit DIE, by DW_AT_name). */
PTXDWARF_API ptxdwarf_status ptxdwarf_set_pubnames(ptxdwarf_unit* unit, const ptxdwarf_die* dies,
                                                   const char* const* names, size_t count);

/* ---- Sections -------------------------------------------------------------- */

typedef struct ptxdwarf_sections ptxdwarf_sections;

typedef struct {
  int no_pubnames;                /* nonzero: no .debug_pubnames */
  int aranges;                    /* nonzero: a .debug_aranges too */
  int pubnames_length_chapter6;   /* nonzero: debug_info_length is the unit_length field, as the Chapter 6
                                     example writes it; 0: the unit's full size (DWARF) */
  int siblings;                   /* nonzero: DW_AT_sibling on DIEs with children and a next sibling */
} ptxdwarf_encode_options;

/* Encodes the unit into .debug_abbrev, .debug_info and as asked .debug_pubnames,
 * .debug_aranges, .debug_loc (only when lists exist). options NULL: defaults. */
PTXDWARF_API ptxdwarf_status ptxdwarf_encode(const ptxdwarf_unit* unit, const ptxdwarf_encode_options* options,
                                             ptxdwarf_sections** out);
/* Several units into one set of sections. */
PTXDWARF_API ptxdwarf_status ptxdwarf_encode_units(const ptxdwarf_unit* const* units, size_t count,
                                                   const ptxdwarf_encode_options* options, ptxdwarf_sections** out);
/* The debug sections of PTX text (`.section NAME { ... }` blocks); filename is for messages (NULL: "<input>"). */
PTXDWARF_API ptxdwarf_status ptxdwarf_read_ptx(const char* text, size_t length, const char* filename,
                                               ptxdwarf_sections** out);
PTXDWARF_API void ptxdwarf_sections_free(ptxdwarf_sections* sections);

typedef struct {
  const char* name;     /* ".debug_info" */
  const uint8_t* bytes; /* `size` bytes; relocated operands zero-filled */
  size_t size;
  size_t relocation_count;
} ptxdwarf_section_info;

typedef struct {
  uint64_t offset;    /* of the operand in the section */
  uint8_t size;       /* 1, 2, 4 or 8 */
  const char* symbol; /* the symbol, label or section name */
  const char* minus;  /* "" or, for a label difference `symbol - minus`, the subtrahend */
  int64_t addend;
} ptxdwarf_relocation;

PTXDWARF_API size_t ptxdwarf_sections_count(const ptxdwarf_sections* sections); /* 0 for NULL */
PTXDWARF_API ptxdwarf_status ptxdwarf_sections_get(const ptxdwarf_sections* sections, size_t index,
                                                   ptxdwarf_section_info* out);
/* The index of the section named `name` (".debug_info"); PTXDWARF_E_NOT_FOUND when absent. */
PTXDWARF_API ptxdwarf_status ptxdwarf_sections_find(const ptxdwarf_sections* sections, const char* name, size_t* index);
PTXDWARF_API ptxdwarf_status ptxdwarf_sections_relocation(const ptxdwarf_sections* sections, size_t section,
                                                          size_t index, ptxdwarf_relocation* out);

/* ---- PTX text ----------------------------------------------------------------- */

typedef enum {
  PTXDWARF_STYLE_PACKED = 0,       /* `.b8 a, b, c` runs */
  PTXDWARF_STYLE_ONE_PER_LINE = 1, /* one `.b8 N` per line (the nvcc/LLVM layout) */
  PTXDWARF_STYLE_VERBOSE = 2,      /* one DWARF field per line with a comment naming it */
  PTXDWARF_STYLE_DENSE = 3         /* data as `.b32 0x106, 0x45` little-endian hex words: the smallest text */
} ptxdwarf_style;

typedef struct {
  ptxdwarf_style style;
  unsigned version_major, version_minor; /* the PTX `.version` the text goes into; 0.0: not given, every
                                            version rule holds (labels need 7.0, A-B 7.5) */
  unsigned bytes_per_line;               /* packed and dense styles; 0: 16 */
  int crlf;                              /* nonzero: "\r\n" line endings */
} ptxdwarf_render_options;

/* The sections as `.section NAME { ... }` blocks, in order, into a new
 * NUL-terminated string freed with ptxdwarf_string_free. PTXDWARF_E_RENDER
 * when the target version cannot express them (labels below 7.0, ...).
 * options NULL: defaults. */
PTXDWARF_API ptxdwarf_status ptxdwarf_render_ptx(const ptxdwarf_sections* sections,
                                                 const ptxdwarf_render_options* options, char** out);
PTXDWARF_API void ptxdwarf_string_free(char* text);

/* ---- Programs: a whole module with its line table ---------------------------
 * The producer writes its code into the program as it goes; the program
 * writes the `.loc` lines and labels in between, keeps the `.file` table whose
 * ids DW_AT_decl_file / DW_AT_call_file take (decl_file, call_file above), and
 * assembles header + `.file` table + code + debug sections into PTX that
 * ptxas accepts. The C++ API is ptxdwarf/write/program.h; README.md, "Use the
 * library", has a complete producer. */

typedef struct ptxdwarf_program ptxdwarf_program;

typedef struct {
  unsigned version_major, version_minor; /* the module's `.version`; 0.0: 7.5 */
  const char* target;                    /* the operands of `.target`; NULL: "sm_80" */
  unsigned address_size;                 /* 32 or 64; 0: 64 */
  int flatten_inlined;      /* nonzero: below `.version` 7.2, inlined code gets its innermost location alone
                               (0: ptxdwarf_program_loc refuses inlined code there) */
  const char* label_prefix; /* NULL: "$L__" ($L__func_begin0, $L__tmp0, $L__info_string0) */
} ptxdwarf_program_options;

/* options NULL: defaults. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_create(const ptxdwarf_program_options* options, ptxdwarf_program** out);
PTXDWARF_API void ptxdwarf_program_free(ptxdwarf_program* program);

/* The file id of `path` (1, 2, ... in order of first use; the same path gets the
 * same id): what `.loc`, decl_file and call_file take. The _info form records a
 * timestamp and size too (ptxas puts them in the line table); a path given
 * again with another timestamp or size is PTXDWARF_E_INVALID_ARGUMENT. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_add_file(ptxdwarf_program* program, const char* path, unsigned* id);
PTXDWARF_API ptxdwarf_status ptxdwarf_program_add_file_info(ptxdwarf_program* program, const char* path,
                                                            uint64_t timestamp, uint64_t size, unsigned* id);

/* Appends PTX text (everything after the module header: variables,
 * functions; not `.version`, `.target`, `.address_size` or `.file`). */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_code(ptxdwarf_program* program, const char* text);

/* Writes the function's begin label here (after its register declarations)
 * and forgets the previous function's locations; *begin_label / *end_label
 * (either may be NULL) name the labels for DW_AT_low_pc / DW_AT_high_pc. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_begin_function(ptxdwarf_program* program, const char** begin_label,
                                                             const char** end_label);
/* Writes the end label of the function begun last (after its last instruction). */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_end_function(ptxdwarf_program* program);
/* Writes a fresh label here (a scope's or a location-list range's boundary) and names it in *name. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_label(ptxdwarf_program* program, const char** name);
/* A fresh label name, not written yet (a forward branch target); write it with ptxdwarf_program_place_label. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_new_label(ptxdwarf_program* program, const char** name);
PTXDWARF_API ptxdwarf_status ptxdwarf_program_place_label(ptxdwarf_program* program, const char* name);

/* One level of inlining: `function` (the name put in .debug_str, usually
 * mangled) inlined at call_file:call_line:call_column of the level out. */
typedef struct {
  const char* function;
  unsigned call_file, call_line, call_column;
} ptxdwarf_inlined_call;

/* The `.loc` line(s) for the next instruction: nothing when the previous
 * instruction had the same location. `inlined` (depth levels, outermost call
 * first; NULL with depth 0 for none) is the inline stack of the code: its
 * call sites are written first where no earlier `.loc` of the function used
 * them, as ptxas requires. *written (may be NULL): the number of lines.
 * PTXDWARF_E_INVALID_ARGUMENT for a file id not in the table, or inlined code
 * below `.version` 7.2 without flatten_inlined. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_loc(ptxdwarf_program* program, unsigned file, unsigned line,
                                                  unsigned column, const ptxdwarf_inlined_call* inlined, size_t depth,
                                                  size_t* written);

typedef enum {
  PTXDWARF_SEVERITY_NOTE = 0,
  PTXDWARF_SEVERITY_WARNING = 1,
  PTXDWARF_SEVERITY_ERROR = 2
} ptxdwarf_severity;

typedef struct {
  ptxdwarf_severity severity;
  uint32_t line, column; /* in the assembled PTX; 0: unknown */
  const char* message;
  const char* rule;    /* "decl-file", ...; "" for reader errors */
  const char* section; /* ".debug_info", ...; "" when not about a section byte */
  int64_t offset;      /* in `section`; -1 when not applicable */
} ptxdwarf_diagnostic;

typedef struct ptxdwarf_diagnostics ptxdwarf_diagnostics;
PTXDWARF_API size_t ptxdwarf_diagnostics_count(const ptxdwarf_diagnostics* diagnostics); /* 0 for NULL */
PTXDWARF_API ptxdwarf_status ptxdwarf_diagnostics_get(const ptxdwarf_diagnostics* diagnostics, size_t index,
                                                      ptxdwarf_diagnostic* out);
/* "file:line:col: severity: message [rule]" into a string freed with ptxdwarf_string_free. */
PTXDWARF_API ptxdwarf_status ptxdwarf_diagnostics_format(const ptxdwarf_diagnostics* diagnostics, size_t index,
                                                         const char* filename, char** out);
PTXDWARF_API void ptxdwarf_diagnostics_free(ptxdwarf_diagnostics* diagnostics);

typedef struct {
  ptxdwarf_style style;                  /* of the debug sections */
  const ptxdwarf_encode_options* encode; /* NULL: defaults */
  int check;                             /* nonzero: read the result back and run every ptxdump check rule on it */
  const char* filename;                  /* names the text in the check's diagnostics; NULL: "<assembled>" */
} ptxdwarf_assemble_options;

/* The complete module: `.version`/`.target`/`.address_size`, the `.file`
 * table, the code, then the units' debug sections (count may be 0) and the
 * `.debug_str` of the inlined functions' names, ending in a newline; into a
 * new string freed with ptxdwarf_string_free. With options->check, *diagnostics
 * (when not NULL) receives what the check found (empty when nothing); free it
 * with ptxdwarf_diagnostics_free. PTXDWARF_E_ASSEMBLE (message: every problem)
 * when a decl_file/call_file id is not in the file table, the code writes a
 * header directive, or the sections cannot be encoded or written for the
 * version. options NULL: defaults. */
PTXDWARF_API ptxdwarf_status ptxdwarf_program_assemble(const ptxdwarf_program* program,
                                                       const ptxdwarf_unit* const* units, size_t count,
                                                       const ptxdwarf_assemble_options* options, char** ptx,
                                                       ptxdwarf_diagnostics** diagnostics);

/* ---- Annotate: debug information for PTX that has none -----------------------
 * (ptxdwarf/write/annotate.h; `ptxdump annotate`.) The PTX text becomes the
 * source: `.file 1` and a `.loc` before every instruction line, a subprogram
 * per function, a formal parameter per `.param`, a variable per register and
 * per .global/.shared/.const/.local declaration. Every other byte of the text
 * is kept. */
typedef struct {
  const char* source_name; /* what `.file 1` names; NULL: the filename */
  int keep_lines;          /* nonzero: keep the text's .file/.loc, add only the DWARF */
  int rename_registers;    /* nonzero: rename registers over 8 bytes (consistently in their function) */
  int replace;             /* nonzero: replace the text's debug information instead of refusing it */
} ptxdwarf_annotate_options;

/* The annotated text into *out (free with ptxdwarf_string_free); *diagnostics
 * (when not NULL) receives the warnings (registers that get no variable).
 * PTXDWARF_E_PARSE when the text cannot be read, PTXDWARF_E_ASSEMBLE when it
 * is refused (it has debug information already, or the output would be over
 * 64 times its size -- register ranges make a variable per register:
 * AnnotateOptions::maxGrowth in C++). filename NULL: "<input>". */
PTXDWARF_API ptxdwarf_status ptxdwarf_annotate(const char* text, size_t length, const char* filename,
                                               const ptxdwarf_annotate_options* options, char** out,
                                               ptxdwarf_diagnostics** diagnostics);

/* ---- Strip and remap: debug information removed, source paths rewritten -----
 * (ptxdwarf/write/strip.h, ptxdwarf/write/remap.h; `ptxdump strip`,
 * `ptxdump reformat --remap-path`.) */
typedef enum {
  PTXDWARF_STRIP_ALL = 0,        /* every debug section, .file, .loc, and `debug` of .target */
  PTXDWARF_STRIP_KEEP_LINES = 1  /* what -lineinfo leaves: .file/.loc (and .debug_str for function_name) */
} ptxdwarf_strip_mode;

/* The stripped text into *out (free with ptxdwarf_string_free); every other
 * byte of the text is kept. PTXDWARF_E_INVALID_ARGUMENT for an unknown mode,
 * PTXDWARF_E_PARSE when the text cannot be read, PTXDWARF_E_ASSEMBLE when it
 * is refused (`.target debug` naming no architecture). */
PTXDWARF_API ptxdwarf_status ptxdwarf_strip(const char* text, size_t length, const char* filename, int mode,
                                            char** out);

/* Source paths rewritten as -ffile-prefix-map rewrites them: each of
 * `maps` (count of them) is "OLD=NEW", split at the first '='; a path that
 * starts with OLD has it replaced by NEW, the last matching map winning.
 * `.file` paths and the units' DW_AT_name/DW_AT_comp_dir change; the
 * sections whose contents move are rewritten (packed style), every other
 * byte is kept. PTXDWARF_E_INVALID_ARGUMENT for a map without '=',
 * PTXDWARF_E_PARSE when the text cannot be read, PTXDWARF_E_ASSEMBLE when it
 * is refused (message: why, at file:line:col). */
PTXDWARF_API ptxdwarf_status ptxdwarf_remap_paths(const char* text, size_t length, const char* filename,
                                                  const char* const* maps, size_t count, char** out);

/* ---- The debugger's view -------------------------------------------------------
 *
 * What a debugger sees at a place of a PTX file or a cubin (ptxdwarf/view/lookup.h):
 *
 *   ptxdwarf_module* m;
 *   ptxdwarf_lookup* l;
 *   ptxdwarf_module_read(text, length, "kernel.ptx", &m);
 *   ptxdwarf_lookup_at(m, "kernel.cu:42", &l);         (or "ptx:120", or a function name)
 *   for (size_t i = 0; i < ptxdwarf_lookup_match_count(l); ++i) {
 *     ptxdwarf_match_info match;
 *     ptxdwarf_lookup_match(l, i, &match);
 *     for (size_t v = 0; v < match.variable_count; ++v) {
 *       ptxdwarf_variable_info var;
 *       ptxdwarf_lookup_variable(l, i, v, &var);        (var.name, var.type, var.location, ...)
 *     }
 *   }
 *   ptxdwarf_lookup_free(l); ptxdwarf_module_free(m);
 */

typedef struct ptxdwarf_module ptxdwarf_module; /* PTX text read, its DWARF decoded */
typedef struct ptxdwarf_lookup ptxdwarf_lookup; /* the answer at one place */

/* PTXDWARF_E_PARSE when the text has syntax errors or no .version directive
 * (the message names them). The text may be freed once this returns. A text
 * that starts with the ELF magic is read as a cubin (a copy is kept). */
PTXDWARF_API ptxdwarf_status ptxdwarf_module_read(const char* text, size_t length, const char* filename,
                                                  ptxdwarf_module** out);
/* The file at `path` read as ptxdump reads it (ptxdwarf::load, ptxdwarf/load.h):
 * mapped, read, its name index built and its DWARF decoded, on up to `threads`
 * threads (0 or 1: the calling thread only). PTXDWARF_E_PARSE when the file
 * cannot be read ("PATH: error: cannot read file: ...") or its text has errors. */
PTXDWARF_API ptxdwarf_status ptxdwarf_module_open(const char* path, unsigned threads, ptxdwarf_module** out);
PTXDWARF_API void ptxdwarf_module_free(ptxdwarf_module* module);

/* where: "SOURCE:LINE" (any path suffix), "ptx:LINE", or a function name.
 * PTXDWARF_E_NOT_FOUND when nothing matches (the message says why). */
PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_at(const ptxdwarf_module* module, const char* where,
                                                ptxdwarf_lookup** out);
PTXDWARF_API void ptxdwarf_lookup_free(ptxdwarf_lookup* lookup);
PTXDWARF_API size_t ptxdwarf_lookup_match_count(const ptxdwarf_lookup* lookup); /* 0 for NULL */

typedef struct {
  const char* function;      /* the PTX function */
  const uint32_t* ptx_lines; /* `ptx_line_count` PTX lines of the instructions of this place */
  size_t ptx_line_count;
  size_t scope_count;        /* innermost first, up to the subprogram */
  size_t variable_count;     /* visible there */
} ptxdwarf_match_info;

typedef struct {
  uint16_t tag;          /* DW_TAG_subprogram, DW_TAG_inlined_subroutine, DW_TAG_lexical_block */
  const char* name;      /* "" for blocks */
  uint64_t die;          /* DIE offset in .debug_info */
  const char* call_file; /* inlined subroutines: the call site; "" otherwise */
  uint64_t call_line;
} ptxdwarf_scope_info;

typedef struct {
  const char* name;
  int is_parameter;
  const char* type;       /* C spelling: "int *" */
  const char* location;   /* in PTX terms at the place: "%r5", "_Z4testPi_param_0", "__local_depot0+8" */
  int available;          /* 0: no location covers the place (optimized out there) */
  uint64_t address_class; /* DW_AT_address_class (PTXDWARF_ADDR_*), 0 when absent */
  uint64_t decl_line;
  uint64_t die;           /* DIE offset in .debug_info */
} ptxdwarf_variable_info;

PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_match(const ptxdwarf_lookup* lookup, size_t match,
                                                   ptxdwarf_match_info* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_scope(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                                   ptxdwarf_scope_info* out);
PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_variable(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                                      ptxdwarf_variable_info* out);

/* On a cubin (ptxdwarf_module_read/open of the ELF file ptxas writes; where:
 * also "FUNCTION+0xPC", and "SOURCE:LINE" gives every address where
 * cuda-gdb puts a breakpoint for the line):
 * the match's SASS address, relative to its function, and the source line of
 * the line table row there (0: none). PTXDWARF_E_NOT_FOUND for a match on a
 * PTX file, which has no address. */
PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_match_pc(const ptxdwarf_lookup* lookup, size_t match, uint64_t* pc,
                                                      uint32_t* line);
/* On a cubin: where cuda-gdb reads the variable at the match's address, in
 * SASS terms, piece 0 first: {"R4", "R5"} for a 64-bit register in two
 * pieces, {"P0"}, {"[param+0x210]"}, {"[CFA-0x68]"}; *count 0 when it is
 * unavailable there (cuda-gdb prints <optimized out>; the variable's
 * `available` is 0) or on a PTX file. The strings live as long as the lookup. */
PTXDWARF_API ptxdwarf_status ptxdwarf_lookup_variable_sass(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                                           const char* const** sass, size_t* count);
/* ---- What a cubin holds beyond its DWARF ----------------------------------------
 *
 * A module opened or read from a cubin (ptxas's ELF file: ptxdwarf_module_open
 * and ptxdwarf_module_read take either) has its DWARF as any module; these are
 * the rest (ptxdwarf/cubin/): the line table with each row's inline stack, as
 * cuda-gdb decodes NVIDIA's extension; `.nv_debug_line_sass` (SASS address ->
 * line of the embedded PTX); the register map `.nv_debug_info_reg_sass`; the
 * embedded PTX. Strings live as long as the ptxdwarf_cubin.
 *
 *   ptxdwarf_cubin* c;
 *   ptxdwarf_cubin_open(m, &c);
 *   for (size_t i = 0; i < ptxdwarf_cubin_regmap_count(c); ++i) {
 *     ptxdwarf_regmap_entry e;
 *     ptxdwarf_cubin_regmap_entry(c, i, &e);      (e.function, e.register_name, e.sass, e.start, e.end, ...)
 *   }
 *   ptxdwarf_cubin_free(c);
 */
typedef struct ptxdwarf_cubin ptxdwarf_cubin;

/* PTXDWARF_E_INVALID_ARGUMENT when the module was not read from a cubin. */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_open(const ptxdwarf_module* module, ptxdwarf_cubin** out);
PTXDWARF_API void ptxdwarf_cubin_free(ptxdwarf_cubin* cubin);
/* 1 when the module was read from a cubin, else 0 (0 for NULL). */
PTXDWARF_API int ptxdwarf_module_is_cubin(const ptxdwarf_module* module);

typedef struct {
  uint64_t address;     /* SASS address, function-relative */
  const char* file;     /* the file's path, joined with its directory */
  uint32_t line;
  uint32_t column;
  int is_stmt;
  int end_sequence;
  size_t inline_depth;  /* frames of its inline stack (ptxdwarf_cubin_inline_frame): the innermost, at most 64
                           as ptxdump prints them; 0: not inlined */
  int inline_broken;    /* 1: a context named no earlier row, the stack ends there */
  size_t inline_frames_omitted; /* the frames past those inline_depth counts */
} ptxdwarf_line_row;

typedef struct {
  const char* function;  /* the inlined function; "" when its name is outside .debug_str */
  const char* call_file;
  uint32_t call_line;
  uint32_t call_column;
} ptxdwarf_inline_frame;

/* `.debug_line`'s rows, every table's in order (end_sequence rows included). */
PTXDWARF_API size_t ptxdwarf_cubin_line_count(const ptxdwarf_cubin* cubin); /* 0 for NULL */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_line(const ptxdwarf_cubin* cubin, size_t row, ptxdwarf_line_row* out);
/* Frame `depth` of the row's inline stack, innermost first. */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_inline_frame(const ptxdwarf_cubin* cubin, size_t row, size_t depth,
                                                        ptxdwarf_inline_frame* out);

typedef struct {
  uint64_t address;  /* SASS address, function-relative */
  uint32_t ptx_line; /* line of the embedded PTX */
  int end_sequence;
} ptxdwarf_sass_line;

/* `.nv_debug_line_sass`'s rows. */
PTXDWARF_API size_t ptxdwarf_cubin_sass_line_count(const ptxdwarf_cubin* cubin); /* 0 for NULL */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_sass_line(const ptxdwarf_cubin* cubin, size_t row,
                                                     ptxdwarf_sass_line* out);

typedef struct {
  const char* function;      /* the function's linkage name */
  const char* register_name; /* the PTX register, with its `%` */
  uint32_t piece;            /* which 32-bit part of the register */
  uint32_t loc;              /* the raw location: class << 24 | payload */
  const char* class_name;    /* "full", "half", "predicate", "local", ... */
  const char* sass;          /* as cuda-gdb names it: "R5", "P0", "UR4", "[local+0x10]" */
  uint32_t start, end;       /* function-relative SASS PCs; cuda-gdb takes `end` as inclusive */
} ptxdwarf_regmap_entry;

/* `.nv_debug_info_reg_sass`'s entries, function by function (the keys of
 * `ptxdump dump --debug-regmap --format json`). */
PTXDWARF_API size_t ptxdwarf_cubin_regmap_count(const ptxdwarf_cubin* cubin); /* 0 for NULL */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_regmap_entry(const ptxdwarf_cubin* cubin, size_t index,
                                                        ptxdwarf_regmap_entry* out);
/* Where the register map stopped decoding, or "" when it decoded whole. */
PTXDWARF_API const char* ptxdwarf_cubin_regmap_problem(const ptxdwarf_cubin* cubin);

/* The PTX ptxas embedded (`.nv_debug_ptx_txt`), lines as `.nv_debug_line_sass`
 * numbers them; PTXDWARF_E_NOT_FOUND when the cubin has none. The text lives
 * as long as the ptxdwarf_cubin. */
PTXDWARF_API ptxdwarf_status ptxdwarf_cubin_embedded_ptx(const ptxdwarf_cubin* cubin, const char** text,
                                                        size_t* length);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTXDWARF_PTXDWARF_H */
