// Capacity reserved up front for vectors that grow with their input.
//
// A vector that grows by doubling copies itself at each step and leaves the
// old buffer behind: it touches about twice the memory it ends up holding,
// and on machines where a page fault is dear that is where the time goes.
// Reserving for the most the input could hold costs address space, not
// memory -- pages never written are never mapped in -- so the vector fills
// in place and touches each page once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ptxdwarf {

// Asks for transparent huge pages over [data, data + bytes) where the kernel
// grants them on request: a large vector filled front to back then faults
// once per 2 MiB instead of once per 4 KiB. A no-op elsewhere.
void adviseHugePages(const void* data, size_t bytes);

// Reserves `v` for `items` elements, capped so that a huge input does not
// ask for more address space than a small machine will promise (past the
// cap the vector grows as usual). `large`: the caller's input is big enough
// that the vector will hold megabytes; then the reservation gets huge pages,
// and what is filled of it is at most one huge page more than with small
// ones. The bound alone cannot tell -- it is generous: a 1 MB file may
// reserve room for 250,000 labels and hold 5,000, and a huge page for a few
// kilobytes is memory for nothing.
template <class T>
void reserveUpTo(std::vector<T>& v, uint64_t items, bool large = false) {
  constexpr uint64_t kMaxReservedBytes = uint64_t{256} << 20;
  constexpr uint64_t kHugePage = uint64_t{2} << 20;
  const uint64_t count = std::min<uint64_t>(items, kMaxReservedBytes / sizeof(T));
  if (count <= v.capacity()) return;
  v.reserve(static_cast<size_t>(count));
  if (large && count * sizeof(T) >= kHugePage) adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

// Gives back the memory of a reserved vector's unused tail: the whole pages
// past its last element. Huge pages make a filled reservation hold up to
// 2 MiB more than its elements, fillAhead up to a step; releasing the tail
// splits the last huge page and returns what lies beyond them. The capacity
// stays (a later push faults fresh zero pages in). A no-op for small
// reservations and off Linux.
void releaseUnusedTail(const void* data, size_t usedBytes, size_t capacityBytes);
// Gives back the whole pages inside [data, data + bytes), whatever their
// number: memory that holds nothing and that a later write may fault in
// again. A no-op off Linux.
void releasePages(const void* data, size_t bytes);
template <class T>
void releaseUnusedTail(std::vector<T>& v) {
  releaseUnusedTail(v.data(), v.size() * sizeof(T), v.capacity() * sizeof(T));
}

// Maps in the pages of [data, data + bytes) that are not mapped yet, in one
// call, for memory about to be written whole. Where a page fault is dear
// (a virtual machine takes an exit for each) this costs a fraction of
// faulting the pages in one by one as the writes reach them: on the
// machines this project is measured on, 10 MB take 5-7 ms this way and
// 28-30 ms by faults, and even one page is cheaper so (8 us against 13,
// four pages 9-26 us against 39-51). Advice, as adviseHugePages: a no-op
// for less than a whole page, off Linux, and on kernels without
// MADV_POPULATE_WRITE (before 5.14).
void prefault(const void* data, size_t bytes);

// Reserves `v` for `size` elements (huge pages from 2 MiB on, as
// reserveUpTo gives them) and maps in the pages its elements from v.size()
// to `size` will take: for a vector whose final size is known before it is
// filled.
template <class T>
void reserveExactly(std::vector<T>& v, size_t size) {
  if (size <= v.size()) return;
  reserveUpTo(v, size, true);
  const size_t end = std::min(size, v.capacity());  // reserveUpTo stops at its cap
  if (end > v.size()) prefault(v.data() + v.size(), (end - v.size()) * sizeof(T));
}

// Filling a reservation front to back without a page fault for each page:
// whenever a vector's end comes within kFillMargin of a new step of
// kFillStep bytes of address space, that step is mapped in with one call
// (prefault). Where a fault is dear this costs a fraction of faulting page
// by page, and unlike huge pages it never maps more than a step past the
// end: a 20 MB nvcc -G file's model filled in huge pages held up to 2 MiB of
// nothing per vector until the read was over.
inline constexpr size_t kFillStep = size_t{128} << 10;
// How near the end of what is mapped a vector's end comes before the next
// step is mapped in: more than one append adds. Mapping the next step as the
// end entered the one before, a filled vector held on average a step and a
// half mapped and never written, 128-250 KB for each of the 23 that a 20 MB
// nvcc -G file's read ends with (3.4 MB, mapped in and given back); so it
// holds half a step and the margin. The call count is the same: on the
// machines this project is measured on a call costs about what four pages
// do, so smaller steps saved nothing.
inline constexpr size_t kFillMargin = size_t{16} << 10;

// A vector maps in nothing ahead of it until it holds a page
// (kFirstPageBytes): one that stays that small costs a fault or two. Then
// the rest of its first kFaultedBytes is mapped in with a call, and once it
// holds those it usually goes on (a part of a large file holds hundreds of
// kilobytes of each kind of item): the rest of its step is mapped in at
// once. Without these, the first step of each of a large read's forty-odd
// vectors was faulted in page by page (1,500 of the 3,100 faults of a 20 MB
// check; then the first 16 KB were 300 of 540).
inline constexpr size_t kFirstPageBytes = size_t{4} << 10;
inline constexpr size_t kFaultedBytes = size_t{16} << 10;

// Maps in the step `at` lies in, from its start, up to `limit`.
void mapStepAt(const void* at, const void* limit);
// Maps in the pages from `end` to the end of the step that `end` plus
// kFillMargin lies in, up to `limit`.
void mapAhead(const void* end, const void* limit);
// Maps in the pages from `end` to `through`, up to `limit`.
void mapThrough(const void* end, const void* through, const void* limit);

// Whether `end`, after `appended` more bytes, just came within kFillMargin
// of a new step (appended: less than a step).
inline bool nearedNewStep(const void* end, size_t appended) {
  return ((reinterpret_cast<uintptr_t>(end) + kFillMargin) & (kFillStep - 1)) < appended;
}

// To call after appending `appended` bytes (less than a step) to a vector
// reserved by reserveUpTo without huge pages: a few instructions, unless the
// end just came near a new step or passed kFirstPageBytes or kFaultedBytes.
template <class T>
inline void fillAhead(const std::vector<T>& v, size_t appended = sizeof(T)) {
  const T* end = v.data() + v.size();
  const size_t filled = v.size() * sizeof(T);
  auto passed = [&](size_t bytes) { return filled >= bytes && filled - appended < bytes; };
  if (nearedNewStep(end, appended)) [[unlikely]]
    mapStepAt(reinterpret_cast<const char*>(end) + kFillMargin, v.data() + v.capacity());
  else if (passed(kFaultedBytes)) [[unlikely]]
    mapAhead(end, v.data() + v.capacity());
  else if (passed(kFirstPageBytes)) [[unlikely]]
    mapThrough(end, reinterpret_cast<const char*>(v.data()) + kFaultedBytes, v.data() + v.capacity());
}
// The same for a buffer filled front to back (mapAhead from its start):
// `rest` is what is not filled yet.
template <class T>
inline void fillAhead(std::span<T> rest, size_t appended) {
  if (nearedNewStep(rest.data(), appended)) [[unlikely]]
    mapStepAt(reinterpret_cast<const char*>(rest.data()) + kFillMargin, rest.data() + rest.size());
}

// PTX text from this size on is `large` for reserveUpTo (annotate's line
// starts; the reader fills its vectors through fillAhead instead).
inline constexpr uint64_t kLargeText = uint64_t{4} << 20;

}  // namespace ptxdwarf
