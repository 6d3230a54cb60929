// libdwarf (20210528) as an oracle: linked section images served from memory
// through Dwarf_Obj_Access_Interface, walked into an OracleView. Only libdwarf
// headers here: its <dwarf.h> defines DW_* macros that clash with LLVM's names
// and with ptxdwarf/dwarf.h's enumerators, so that header is not included either.
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <map>

#include "oracle.h"
#include "ptxdwarf/format.h"

namespace ptxdump {

bool haveLibdwarfOracle() { return true; }

namespace {

// Section index 0 is an empty dummy: libdwarf skips it (and finds nothing without it).
struct MemoryObject {
  std::vector<const ptxdwarf::SectionImage*> sections;  // [0] = nullptr
};

int getSectionInfo(void* obj, Dwarf_Half index, Dwarf_Obj_Access_Section* out, int* error) {
  auto* m = static_cast<MemoryObject*>(obj);
  *error = 0;
  if (index >= m->sections.size()) return DW_DLV_NO_ENTRY;
  *out = Dwarf_Obj_Access_Section{};
  const ptxdwarf::SectionImage* s = m->sections[index];
  out->name = s ? s->name.c_str() : "";
  out->size = s ? s->bytes.size() : 0;
  return DW_DLV_OK;
}
Dwarf_Endianness getByteOrder(void*) { return DW_OBJECT_LSB; }
Dwarf_Small getLengthSize(void*) { return 4; }
Dwarf_Small getPointerSize(void*) { return 8; }
Dwarf_Unsigned getSectionCount(void* obj) { return static_cast<MemoryObject*>(obj)->sections.size(); }
int loadSection(void* obj, Dwarf_Half index, Dwarf_Small** data, int* error) {
  auto* m = static_cast<MemoryObject*>(obj);
  *error = 0;
  if (index == 0 || index >= m->sections.size() || m->sections[index]->bytes.empty()) return DW_DLV_NO_ENTRY;
  *data = const_cast<Dwarf_Small*>(m->sections[index]->bytes.data());
  return DW_DLV_OK;
}

const Dwarf_Obj_Access_Methods kMethods = {getSectionInfo, getByteOrder,   getLengthSize, getPointerSize,
                                           getSectionCount, loadSection, nullptr};

using ptxdwarf::hex;

class Walker {
 public:
  Walker(Dwarf_Debug dbg, OracleView& view) : dbg_(dbg), view_(view) {}

  void run() {
    walkUnits();
    walkPubnames();
    walkAranges();
  }

 private:
  Dwarf_Debug dbg_;
  OracleView& view_;
  std::map<uint64_t, bool> loclists_;
  unsigned addressSize_ = 8;  // of the unit being walked

  void message(const std::string& where, Dwarf_Error err) {
    view_.messages.push_back("error: " + where + ": " + (err ? dwarf_errmsg(err) : "failed"));
    if (err) dwarf_dealloc(dbg_, err, DW_DLA_ERROR);
  }

  void walkUnits() {
    uint64_t unitOffset = 0;
    for (;;) {
      Dwarf_Unsigned length = 0, typeOffset = 0, next = 0;
      Dwarf_Half version = 0, addressSize = 0, lengthSize = 0, extensionSize = 0, unitType = 0;
      Dwarf_Off abbrevOffset = 0;
      Dwarf_Sig8 signature;
      Dwarf_Error err = nullptr;
      int rc = dwarf_next_cu_header_d(dbg_, 1, &length, &version, &abbrevOffset, &addressSize, &lengthSize,
                                      &extensionSize, &signature, &typeOffset, &next, &unitType, &err);
      if (rc == DW_DLV_NO_ENTRY) return;
      if (rc != DW_DLV_OK) {
        message(".debug_info+" + hex(unitOffset) + ": unit header", err);
        return;
      }
      view_.units.push_back({unitOffset, length, version, abbrevOffset, static_cast<uint8_t>(addressSize)});
      addressSize_ = addressSize;
      Dwarf_Die cuDie = nullptr;
      rc = dwarf_siblingof_b(dbg_, nullptr, 1, &cuDie, &err);
      if (rc == DW_DLV_ERROR) message(".debug_info+" + hex(unitOffset) + ": unit DIE", err);
      if (rc == DW_DLV_OK) walkTree(cuDie);
      unitOffset = next;
    }
  }

  // Depth first, with an explicit stack; libdwarf does not show NULL entries.
  void walkTree(Dwarf_Die root) {
    struct Item {
      Dwarf_Die die;
      uint32_t depth;
    };
    std::vector<Item> stack{{root, 0}};
    while (!stack.empty()) {
      Item item = stack.back();
      stack.pop_back();
      visitDie(item.die, item.depth);
      Dwarf_Error err = nullptr;
      // Push the next sibling first so the child is visited first.
      if (item.depth > 0) {
        Dwarf_Die sibling = nullptr;
        int rc = dwarf_siblingof_b(dbg_, item.die, 1, &sibling, &err);
        if (rc == DW_DLV_OK) stack.push_back({sibling, item.depth});
        else if (rc == DW_DLV_ERROR) message("sibling of DIE " + hex(view_.dies.back().offset), err);
      }
      Dwarf_Die child = nullptr;
      int rc = dwarf_child(item.die, &child, &err);
      if (rc == DW_DLV_OK) stack.push_back({child, item.depth + 1});
      else if (rc == DW_DLV_ERROR) message("child of DIE " + hex(view_.dies.back().offset), err);
      dwarf_dealloc(dbg_, item.die, DW_DLA_DIE);
    }
  }

  void visitDie(Dwarf_Die die, uint32_t depth) {
    OracleDie d;
    d.depth = depth;
    Dwarf_Error err = nullptr;
    Dwarf_Off offset = 0;
    if (dwarf_dieoffset(die, &offset, &err) != DW_DLV_OK) message("DIE offset", err);
    d.offset = offset;
    Dwarf_Half tag = 0;
    if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) message("DIE " + hex(offset) + ": tag", err);
    d.tag = tag;
    Dwarf_Attribute* attrs = nullptr;
    Dwarf_Signed count = 0;
    int rc = dwarf_attrlist(die, &attrs, &count, &err);
    if (rc == DW_DLV_ERROR) message("DIE " + hex(offset) + ": attributes", err);
    if (rc == DW_DLV_OK) {
      for (Dwarf_Signed i = 0; i < count; ++i) {
        d.attrs.push_back(readAttribute(attrs[i], offset));
        dwarf_dealloc(dbg_, attrs[i], DW_DLA_ATTR);
      }
      dwarf_dealloc(dbg_, attrs, DW_DLA_LIST);
    }
    view_.dies.push_back(std::move(d));
  }

  static bool isLocationAttribute(Dwarf_Half at) {
    switch (at) {
      case DW_AT_location:
      case DW_AT_frame_base:
      case DW_AT_data_member_location:
      case DW_AT_string_length:
      case DW_AT_return_addr:
      case DW_AT_static_link:
      case DW_AT_use_location:
      case DW_AT_vtable_elem_location:
        return true;
      default:
        return false;
    }
  }

  OracleAttr readAttribute(Dwarf_Attribute attr, Dwarf_Off dieOffset) {
    OracleAttr a;
    Dwarf_Error err = nullptr;
    Dwarf_Half name = 0, form = 0;
    std::string where = "DIE " + hex(dieOffset);
    if (dwarf_whatattr(attr, &name, &err) != DW_DLV_OK) message(where + ": attribute name", err);
    if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK) message(where + ": attribute form", err);
    a.name = name;
    a.form = form;
    a.kind = kindOfForm(form);
    where += ": attribute " + hex(name);
    int rc = DW_DLV_OK;
    switch (a.kind) {
      case AttrKind::constant:
        if (form == DW_FORM_sdata) {
          Dwarf_Signed s = 0;
          rc = dwarf_formsdata(attr, &s, &err);
          a.u64 = static_cast<uint64_t>(s);
        } else if (form == DW_FORM_sec_offset) {
          Dwarf_Off o = 0;
          rc = dwarf_global_formref(attr, &o, &err);
          a.u64 = o;
        } else {
          Dwarf_Unsigned u = 0;
          rc = dwarf_formudata(attr, &u, &err);
          a.u64 = u;
        }
        if (rc == DW_DLV_OK && isLocationAttribute(name) &&
            (form == DW_FORM_data4 || form == DW_FORM_data8 || form == DW_FORM_sec_offset))
          readLoclist(attr, a.u64, where);
        break;
      case AttrKind::flag: {
        Dwarf_Bool b = 0;
        rc = dwarf_formflag(attr, &b, &err);
        a.u64 = static_cast<uint64_t>(b);
        break;
      }
      case AttrKind::address: {
        Dwarf_Addr addr = 0;
        rc = dwarf_formaddr(attr, &addr, &err);
        a.u64 = addr;
        break;
      }
      case AttrKind::reference: {
        Dwarf_Off o = 0;
        rc = dwarf_global_formref(attr, &o, &err);
        a.u64 = o;
        break;
      }
      case AttrKind::string: {
        char* s = nullptr;
        rc = dwarf_formstring(attr, &s, &err);
        if (rc == DW_DLV_OK && s) a.string = s;
        if (form == DW_FORM_strp) {
          // The offset: libdwarf has no direct call for it in this version; skip (the string is compared).
          a.u64 = UINT64_MAX;
        }
        break;
      }
      case AttrKind::block:
        if (form == DW_FORM_exprloc) {
          Dwarf_Unsigned len = 0;
          Dwarf_Ptr ptr = nullptr;
          rc = dwarf_formexprloc(attr, &len, &ptr, &err);
          if (rc == DW_DLV_OK) a.bytes.assign(static_cast<const uint8_t*>(ptr), static_cast<const uint8_t*>(ptr) + len);
        } else {
          Dwarf_Block* block = nullptr;
          rc = dwarf_formblock(attr, &block, &err);
          if (rc == DW_DLV_OK) {
            const auto* p = static_cast<const uint8_t*>(block->bl_data);
            a.bytes.assign(p, p + block->bl_len);
            dwarf_dealloc(dbg_, block, DW_DLA_BLOCK);
          }
        }
        break;
      case AttrKind::other:
        break;
    }
    if (rc != DW_DLV_OK) {
      a.valueKnown = false;
      if (rc == DW_DLV_ERROR) message(where, err);
    }
    return a;
  }

  void readLoclist(Dwarf_Attribute attr, uint64_t offset, const std::string& where) {
    if (!loclists_.emplace(offset, true).second) return;
    Dwarf_Loc_Head_c head = nullptr;
    Dwarf_Unsigned count = 0;
    Dwarf_Error err = nullptr;
    int rc = dwarf_get_loclist_c(attr, &head, &count, &err);
    if (rc == DW_DLV_ERROR) message(where + ": location list at .debug_loc+" + hex(offset), err);
    if (rc != DW_DLV_OK) return;
    OracleLocList list;
    list.offset = offset;
    for (Dwarf_Unsigned i = 0; i < count; ++i) {
      Dwarf_Small lle = 0, source = 0;
      Dwarf_Unsigned low = 0, high = 0, opCount = 0, exprOffset = 0, entryOffset = 0;
      Dwarf_Bool unavailable = 0;
      Dwarf_Addr lowCooked = 0, highCooked = 0;
      Dwarf_Locdesc_c desc = nullptr;
      rc = dwarf_get_locdesc_entry_d(head, i, &lle, &low, &high, &unavailable, &lowCooked, &highCooked, &opCount,
                                     &desc, &source, &exprOffset, &entryOffset, &err);
      if (rc != DW_DLV_OK) {
        if (rc == DW_DLV_ERROR) message(where + ": location list entry " + std::to_string(i), err);
        break;
      }
      OracleLocEntry e;
      // This libdwarf reports no entry offset for DWARF 2-4 lists (locdesc_offset
      // is 0), but the offset of a range's expression: the entry starts two
      // addresses and a 2-byte length before it. Other entries' offsets are unknown.
      (void)entryOffset;
      e.offset = kUnknownOffset;
      e.begin = low;
      e.end = high;
      if (lle == DW_LLE_base_address) {
        e.kind = OracleLocEntry::baseAddress;
      } else if (lle == DW_LLE_end_of_list) {
        e.kind = OracleLocEntry::endOfList;
      } else if (exprOffset >= 2u * addressSize_ + 2) {
        e.offset = exprOffset - 2u * addressSize_ - 2;
      }
      list.entries.push_back(std::move(e));
    }
    dwarf_loc_head_c_dealloc(head);
    view_.loclists.push_back(std::move(list));
  }

  // dwarf_get_globals lists names, each with its set's header: a set shows only
  // through its names, and one with none is not seen at all (hasEmptyNameSets).
  void walkPubnames() {
    Dwarf_Global* globals = nullptr;
    Dwarf_Signed count = 0;
    Dwarf_Error err = nullptr;
    int rc = dwarf_get_globals(dbg_, &globals, &count, &err);
    if (rc == DW_DLV_ERROR) message(".debug_pubnames", err);
    if (rc != DW_DLV_OK) return;
    Dwarf_Off lastHeader = UINT64_MAX;
    for (Dwarf_Signed i = 0; i < count; ++i) {
      char* name = nullptr;
      Dwarf_Off die = 0, cu = 0;
      if (dwarf_global_name_offsets(globals[i], &name, &die, &cu, &err) != DW_DLV_OK) {
        message(".debug_pubnames entry " + std::to_string(i), err);
        continue;
      }
      Dwarf_Off header = 0;
      Dwarf_Unsigned lengthSize = 0, length = 0, version = 0, infoOffset = 0, infoLength = 0;
      if (dwarf_get_globals_header(globals[i], &header, &lengthSize, &length, &version, &infoOffset, &infoLength,
                                   &err) == DW_DLV_OK) {
        if (header != lastHeader)
          view_.nameSets.push_back({length, static_cast<uint16_t>(version), infoOffset, infoLength, 0});
        lastHeader = header;
        ++view_.nameSets.back().names;
      } else {
        message(".debug_pubnames set header", err);
      }
      view_.pubnames.push_back({die, name ? name : ""});
    }
    dwarf_globals_dealloc(dbg_, globals, count);
  }

  void walkAranges() {
    Dwarf_Arange* aranges = nullptr;
    Dwarf_Signed count = 0;
    Dwarf_Error err = nullptr;
    int rc = dwarf_get_aranges(dbg_, &aranges, &count, &err);
    if (rc == DW_DLV_ERROR) message(".debug_aranges", err);
    if (rc != DW_DLV_OK) return;
    for (Dwarf_Signed i = 0; i < count; ++i) {
      Dwarf_Unsigned segment = 0, segmentSize = 0, length = 0;
      Dwarf_Addr start = 0;
      Dwarf_Off cuDie = 0, cuHeader = 0;
      if (dwarf_get_arange_info_b(aranges[i], &segment, &segmentSize, &start, &length, &cuDie, &err) != DW_DLV_OK) {
        message(".debug_aranges entry " + std::to_string(i), err);
        continue;
      }
      if (dwarf_get_arange_cu_header_offset(aranges[i], &cuHeader, &err) != DW_DLV_OK) {
        message(".debug_aranges entry " + std::to_string(i), err);
        continue;
      }
      if (start == 0 && length == 0) continue;  // libdwarf lists each set's terminator too
      view_.ranges.push_back({cuHeader, start, length});
    }
    for (Dwarf_Signed i = 0; i < count; ++i) dwarf_dealloc(dbg_, aranges[i], DW_DLA_ARANGE);
    dwarf_dealloc(dbg_, aranges, DW_DLA_LIST);
  }
};

}  // namespace

std::optional<OracleView> libdwarfView(std::span<const ptxdwarf::SectionImage> linked, std::string* error) {
  OracleView view;
  view.oracle = "libdwarf";
  view.hasNameSetHeaders = true;
  view.nameSetLengthBits = 8;  // see OracleView::nameSetLengthBits
  MemoryObject object;
  object.sections.push_back(nullptr);
  for (const ptxdwarf::SectionImage& s : linked) object.sections.push_back(&s);
  Dwarf_Obj_Access_Interface iface{&object, &kMethods};
  Dwarf_Debug dbg = nullptr;
  Dwarf_Error err = nullptr;
  int rc = dwarf_object_init_b(&iface, nullptr, nullptr, DW_GROUPNUMBER_ANY, &dbg, &err);
  if (rc == DW_DLV_NO_ENTRY) return view;  // no DWARF sections at all
  if (rc != DW_DLV_OK) {
    if (error) *error = std::string("libdwarf cannot open the sections: ") + (err ? dwarf_errmsg(err) : "failed");
    return std::nullopt;
  }
  Walker(dbg, view).run();
  dwarf_object_finish(dbg, &err);
  return view;
}

}  // namespace ptxdump
