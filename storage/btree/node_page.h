// storage/btree/node_page.h — module-private to storage/btree.
//
// The slotted B-tree node page. After the common 32-byte page header
// (storage/buffer/page.h):
//
//   offset size field
//   32     8    index id: (space id << 32) | root page, same on every node
//   40     2    level: 0 for leaves
//   42     2    number of slots (records)
//   44     2    heap top: records occupy [heap top, kPageSize)
//   46     2    garbage: bytes of dead records inside the heap
//   48     4    prev leaf (kInvalidPageNo at the left end; leaves only)
//   52     4    next leaf (kInvalidPageNo at the right end; leaves only)
//   56     4    leftmost child (internal nodes only)
//   60     4    reserved (0)
//   64     2*n  slot directory: record offsets, in key order
//   ...         free space
//   heap top    records: key length (2), value length (2), key, value
//
// A leaf's records are (key, value). An internal node with separators
// k1 < ... < kn has children c0 (the leftmost child) and c1..cn (the 4-byte
// little-endian value of slot i); child ci holds the keys in [ki, k(i+1)).
// Deleting a record leaves its bytes as garbage; an insert that does not
// fit the contiguous free space compacts the heap first.
//
// Stored on disk; never change the layout.
//
// Thread-safety: views over a page the caller has latched (shared for
// NodeView, exclusive for NodeWriter).
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "storage/buffer/page.h"

namespace sluice::storage {

inline constexpr size_t kNodeIndexIdOffset = 32;
inline constexpr size_t kNodeLevelOffset = 40;
inline constexpr size_t kNodeSlotCountOffset = 42;
inline constexpr size_t kNodeHeapTopOffset = 44;
inline constexpr size_t kNodeGarbageOffset = 46;
inline constexpr size_t kNodePrevOffset = 48;
inline constexpr size_t kNodeNextOffset = 52;
inline constexpr size_t kNodeLeftmostOffset = 56;
inline constexpr size_t kNodeSlotsOffset = 64;
inline constexpr size_t kRecordHeaderSize = 4;
inline constexpr size_t kSlotSize = 2;
// Bytes for slots and records in an empty node.
inline constexpr size_t kNodeCapacity = kPageSize - kNodeSlotsOffset;

// Space a record takes in a node, slot included.
inline constexpr size_t EntrySize(size_t key_len, size_t value_len) {
  return kSlotSize + kRecordHeaderSize + key_len + value_len;
}

class NodeView {
 public:
  explicit NodeView(const char* page) : page_(page) {}

  uint64_t index_id() const { return LoadU64(page_ + kNodeIndexIdOffset); }
  uint16_t level() const { return LoadU16(page_ + kNodeLevelOffset); }
  bool is_leaf() const { return level() == 0; }
  int slot_count() const { return LoadU16(page_ + kNodeSlotCountOffset); }
  uint16_t heap_top() const { return LoadU16(page_ + kNodeHeapTopOffset); }
  uint16_t garbage() const { return LoadU16(page_ + kNodeGarbageOffset); }
  uint32_t prev() const { return LoadU32(page_ + kNodePrevOffset); }
  uint32_t next() const { return LoadU32(page_ + kNodeNextOffset); }
  uint32_t leftmost_child() const { return LoadU32(page_ + kNodeLeftmostOffset); }

  uint16_t record_offset(int i) const { return LoadU16(page_ + kNodeSlotsOffset + kSlotSize * i); }
  std::string_view key(int i) const {
    const char* r = page_ + record_offset(i);
    return std::string_view(r + kRecordHeaderSize, LoadU16(r));
  }
  std::string_view value(int i) const {
    const char* r = page_ + record_offset(i);
    return std::string_view(r + kRecordHeaderSize + LoadU16(r), LoadU16(r + 2));
  }
  size_t record_size(int i) const {
    const char* r = page_ + record_offset(i);
    return kRecordHeaderSize + LoadU16(r) + LoadU16(r + 2);
  }
  // Internal nodes: child i in [0, slot_count()].
  uint32_t child(int i) const { return i == 0 ? leftmost_child() : LoadU32(value(i - 1).data()); }

  // First slot whose key is >= k (slot_count() when none).
  int LowerBound(std::string_view k) const {
    int lo = 0, hi = slot_count();
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (key(mid) < k) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  // First slot whose key is > k.
  int UpperBound(std::string_view k) const {
    int lo = 0, hi = slot_count();
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (key(mid) <= k) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // Bytes free between the slot directory and the heap.
  size_t contiguous_free() const {
    return heap_top() - (kNodeSlotsOffset + kSlotSize * static_cast<size_t>(slot_count()));
  }
  // Bytes free after a compaction.
  size_t available() const { return contiguous_free() + garbage(); }
  bool Fits(size_t entry_size) const { return available() >= entry_size; }
  size_t used() const { return kNodeCapacity - available(); }

  const char* page() const { return page_; }

 private:
  const char* page_;
};

class NodeWriter : public NodeView {
 public:
  explicit NodeWriter(char* page) : NodeView(page), page_(page) {}

  // Empties the node (the common page header stays).
  void Init(uint64_t index_id, uint16_t level) {
    std::memset(page_ + kPageHeaderSize, 0, kPageSize - kPageHeaderSize);
    StoreU64(page_ + kNodeIndexIdOffset, index_id);
    StoreU16(page_ + kNodeLevelOffset, level);
    StoreU16(page_ + kNodeHeapTopOffset, static_cast<uint16_t>(kPageSize));
    set_prev(kInvalidPageNo);
    set_next(kInvalidPageNo);
    set_leftmost_child(kInvalidPageNo);
  }
  void set_prev(uint32_t p) { StoreU32(page_ + kNodePrevOffset, p); }
  void set_next(uint32_t p) { StoreU32(page_ + kNodeNextOffset, p); }
  void set_leftmost_child(uint32_t p) { StoreU32(page_ + kNodeLeftmostOffset, p); }

  // Inserts (k, v) as slot `pos`, compacting when needed. False when the
  // node cannot take it.
  bool Insert(int pos, std::string_view k, std::string_view v) {
    const size_t rec = kRecordHeaderSize + k.size() + v.size();
    if (contiguous_free() < rec + kSlotSize) {
      if (available() < rec + kSlotSize) return false;
      Compact();
    }
    const uint16_t off = static_cast<uint16_t>(heap_top() - rec);
    char* r = page_ + off;
    StoreU16(r, static_cast<uint16_t>(k.size()));
    StoreU16(r + 2, static_cast<uint16_t>(v.size()));
    std::memcpy(r + kRecordHeaderSize, k.data(), k.size());
    if (!v.empty()) std::memcpy(r + kRecordHeaderSize + k.size(), v.data(), v.size());
    const int n = slot_count();
    char* slots = page_ + kNodeSlotsOffset;
    std::memmove(slots + kSlotSize * (pos + 1), slots + kSlotSize * pos, kSlotSize * (n - pos));
    StoreU16(slots + kSlotSize * pos, off);
    StoreU16(page_ + kNodeSlotCountOffset, static_cast<uint16_t>(n + 1));
    StoreU16(page_ + kNodeHeapTopOffset, off);
    return true;
  }

  // Appends after the last slot. REQUIRES: fits and keeps key order.
  void Append(std::string_view k, std::string_view v) {
    bool ok = Insert(slot_count(), k, v);
    assert(ok);
    (void)ok;
  }

  void Remove(int pos) {
    const uint16_t off = record_offset(pos);
    const size_t size = record_size(pos);
    if (off == heap_top()) {
      StoreU16(page_ + kNodeHeapTopOffset, static_cast<uint16_t>(off + size));
    } else {
      StoreU16(page_ + kNodeGarbageOffset, static_cast<uint16_t>(garbage() + size));
    }
    const int n = slot_count();
    char* slots = page_ + kNodeSlotsOffset;
    std::memmove(slots + kSlotSize * pos, slots + kSlotSize * (pos + 1), kSlotSize * (n - pos - 1));
    StoreU16(page_ + kNodeSlotCountOffset, static_cast<uint16_t>(n - 1));
  }

  // Overwrites slot `pos`'s value. REQUIRES: same length.
  void OverwriteValue(int pos, std::string_view v) {
    assert(value(pos).size() == v.size());
    std::memcpy(page_ + record_offset(pos) + kRecordHeaderSize + key(pos).size(), v.data(), v.size());
  }

  void set_child(int i, uint32_t page_no) {
    if (i == 0) {
      set_leftmost_child(page_no);
    } else {
      char buf[4];
      StoreU32(buf, page_no);
      OverwriteValue(i - 1, std::string_view(buf, 4));
    }
  }

  // Rewrites the heap without garbage, records in slot order.
  void Compact() {
    char copy[kPageSize];
    std::memcpy(copy, page_, kPageSize);
    NodeView old(copy);
    uint16_t top = static_cast<uint16_t>(kPageSize);
    for (int i = 0; i < old.slot_count(); ++i) {
      const size_t size = old.record_size(i);
      top = static_cast<uint16_t>(top - size);
      std::memcpy(page_ + top, copy + old.record_offset(i), size);
      StoreU16(page_ + kNodeSlotsOffset + kSlotSize * i, top);
    }
    StoreU16(page_ + kNodeHeapTopOffset, top);
    StoreU16(page_ + kNodeGarbageOffset, 0);
  }

  char* mutable_page() { return page_; }

 private:
  char* page_;
};

}  // namespace sluice::storage
