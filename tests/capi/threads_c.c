/* A JIT calling the C API gets no thread it did not ask for: annotate, read
 * and render a module large enough that each would run in parallel if it
 * were asked to (80,800 instructions), counting /proc/self/task around each.
 * Usage: ptxdwarf_capi_threads (no arguments) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxdwarf/ptxdwarf.h"
#include "expect.h"

/* The threads of this process now: one entry each in /proc/self/task. */
static size_t threadsNow(void) {
  DIR* dir = opendir("/proc/self/task");
  size_t count = 0;
  struct dirent* e;
  if (!dir) return 0;
  while ((e = readdir(dir)) != NULL)
    if (e->d_name[0] != '.') ++count;
  closedir(dir);
  return count;
}

/* 400 kernels of 200 instructions each. */
static char* largeModule(size_t* length) {
  const size_t capacity = 8u << 20;
  char* text = malloc(capacity);
  size_t at = 0;
  int f, i;
  if (!text) return NULL;
  at += (size_t)snprintf(text + at, capacity - at, ".version 7.5\n.target sm_80\n.address_size 64\n");
  for (f = 0; f < 400; ++f) {
    at += (size_t)snprintf(text + at, capacity - at, ".visible .entry k%d()\n{\n\t.reg .b32 %%r<40>;\n", f);
    for (i = 0; i < 200; ++i)
      at += (size_t)snprintf(text + at, capacity - at, "\tadd.s32 %%r%d, %%r%d, 1;\n", i % 40, (i + 1) % 40);
    at += (size_t)snprintf(text + at, capacity - at, "\tret;\n}\n");
  }
  *length = at;
  return text;
}

int main(void) {
  size_t length = 0, before;
  char* text = largeModule(&length);
  char* annotated = NULL;
  char* rendered = NULL;
  ptxdwarf_sections* sections = NULL;
  ptxdwarf_status st;
  EXPECT(text != NULL, "no memory");
  if (!text) return 1;
  before = threadsNow();
  EXPECT(before >= 1, "cannot count threads in /proc/self/task");

  st = ptxdwarf_annotate(text, length, "large.ptx", NULL, &annotated, NULL);
  EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
  EXPECT(threadsNow() == before, "ptxdwarf_annotate started a thread: %zu, not %zu", threadsNow(), before);

  if (annotated) {
    st = ptxdwarf_read_ptx(annotated, strlen(annotated), "large.ptx", &sections);
    EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
    EXPECT(threadsNow() == before, "ptxdwarf_read_ptx started a thread: %zu, not %zu", threadsNow(), before);
  }
  if (annotated) {
    ptxdwarf_module* module = NULL;
    st = ptxdwarf_module_read(annotated, strlen(annotated), "large.ptx", &module);
    EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
    EXPECT(threadsNow() == before, "ptxdwarf_module_read started a thread: %zu, not %zu", threadsNow(), before);
    ptxdwarf_module_free(module);
  }
  if (sections) {
    st = ptxdwarf_render_ptx(sections, NULL, &rendered);
    EXPECT(st == PTXDWARF_OK, "%s: %s", ptxdwarf_status_name(st), ptxdwarf_last_error());
    EXPECT(rendered && strstr(rendered, ".section\t.debug_info") != NULL, "rendered");
    EXPECT(threadsNow() == before, "ptxdwarf_render_ptx started a thread: %zu, not %zu", threadsNow(), before);
  }
  ptxdwarf_string_free(rendered);
  ptxdwarf_sections_free(sections);
  ptxdwarf_string_free(annotated);
  free(text);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
