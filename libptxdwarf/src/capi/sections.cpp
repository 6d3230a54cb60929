// The C API: sections encoded, read from PTX, rendered as PTX text.
#include "capi.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// ---- Sections -------------------------------------------------------------------

ptxdwarf_status ptxdwarf_encode_units(const ptxdwarf_unit* const* units, size_t count,
                                      const ptxdwarf_encode_options* options, ptxdwarf_sections** out) {
  return guard([&] {
    needOut(out, "out");
    if (!units) fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit array is NULL");
    std::vector<const write::Unit*> list;
    for (size_t k = 0; k < count; ++k) {
      if (!units[k]) fail(PTXDWARF_E_INVALID_ARGUMENT, "unit " + std::to_string(k) + " is NULL");
      list.push_back(&units[k]->builder.unit());
    }
    Diagnostics diags;
    auto s = std::make_unique<ptxdwarf_sections>();
    s->images = write::encode(std::span<const write::Unit* const>(list), encodeOptions(options), diags);
    if (diags.hasErrors()) fail(PTXDWARF_E_ENCODE, joinErrors(diags, {}));
    *out = s.release();
  });
}

ptxdwarf_status ptxdwarf_encode(const ptxdwarf_unit* unit, const ptxdwarf_encode_options* options,
                                ptxdwarf_sections** out) {
  if (!unit) return guard([] { fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit is NULL"); });
  return ptxdwarf_encode_units(&unit, 1, options, out);
}

ptxdwarf_status ptxdwarf_read_ptx(const char* text, size_t length, const char* filename, ptxdwarf_sections** out) {
  return guard([&] {
    needOut(out, "out");
    const std::string_view input = textOf(text, length);
    std::string file = filename ? filename : "<input>";
    ptx::ReadResult r = ptx::read(input, file);
    if (!r.ok()) fail(PTXDWARF_E_PARSE, joinErrors(r.diagnostics, file));
    auto s = std::make_unique<ptxdwarf_sections>();
    s->images = std::move(r.module.sections);
    *out = s.release();
  });
}

void ptxdwarf_sections_free(ptxdwarf_sections* sections) { delete sections; }

size_t ptxdwarf_sections_count(const ptxdwarf_sections* sections) { return sections ? sections->images.size() : 0; }

ptxdwarf_status ptxdwarf_sections_get(const ptxdwarf_sections* sections, size_t index, ptxdwarf_section_info* out) {
  return guard([&] {
    const SectionImage& s = sectionAt(sections, index);
    needOut(out, "out");
    out->name = s.name.c_str();
    out->bytes = s.bytes.data();
    out->size = s.bytes.size();
    out->relocation_count = s.relocations.size();
  });
}

ptxdwarf_status ptxdwarf_sections_find(const ptxdwarf_sections* sections, const char* name, size_t* index) {
  return guard([&] {
    const ptxdwarf_sections& x = need(sections, "the sections");
    std::string n = required(name, "the section name");
    needOut(index, "index");
    for (size_t k = 0; k < x.images.size(); ++k) {
      if (x.images[k].name == n) {
        *index = k;
        return;
      }
    }
    fail(PTXDWARF_E_NOT_FOUND, "no section named '" + n + "'");
  });
}

ptxdwarf_status ptxdwarf_sections_relocation(const ptxdwarf_sections* sections, size_t section, size_t index,
                                             ptxdwarf_relocation* out) {
  return guard([&] {
    const SectionImage& s = sectionAt(sections, section);
    needOut(out, "out");
    if (index >= s.relocations.size())
      fail(PTXDWARF_E_NOT_FOUND, "relocation index " + std::to_string(index) + " is out of range (" + s.name + " has " +
                                     std::to_string(s.relocations.size()) + ")");
    const Relocation& r = s.relocations[index];
    out->offset = r.offset;
    out->size = r.size;
    // Names kept by a SectionImage are NUL-terminated (StringStore::keep).
    out->symbol = r.symbol.c_str();
    out->minus = r.minus().c_str();
    out->addend = r.addend();
  });
}

// ---- PTX text -----------------------------------------------------------------------

ptxdwarf_status ptxdwarf_render_ptx(const ptxdwarf_sections* sections, const ptxdwarf_render_options* options,
                                    char** out) {
  return guard([&] {
    const ptxdwarf_sections& x = need(sections, "the sections");
    needOut(out, "out");
    write::WriteOptions w;
    if (options) {
      w.style = styleOf(options->style);
      if (options->version_major || options->version_minor)
        w.version = ptx::Version{options->version_major, options->version_minor, true};
      if (options->bytes_per_line) w.bytesPerLine = options->bytes_per_line;
      w.crlf = options->crlf != 0;
    }
    read::Dwarf dwarf;  // the field boundaries the verbose style annotates
    if (w.style == write::Style::verbose) {
      dwarf = read::decode(x.images);
      w.dwarf = &dwarf;
    }
    Diagnostics diags;
    std::string text;
    if (!write::writeSections(text, x.images, w, diags)) fail(PTXDWARF_E_RENDER, joinErrors(diags, {}));
    *out = mallocCopy(text);
  });
}

void ptxdwarf_string_free(char* text) { std::free(text); }

