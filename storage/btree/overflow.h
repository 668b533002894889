// storage/btree/overflow.h
//
// Overflow chains: a value too large for its B+tree record (BTree::
// kMaxRecordSize) is written to pages of its own and the record keeps a
// small reference to them (OverflowRef). The engine decides what goes off
// the page and who owns a chain (storage/engine/engine.h, "Off-page rows");
// this file only writes, reads and frees chains.
//
// A chain is a singly linked list of kOverflow pages of one tablespace, in
// value order. Page layout after the common 32-byte header (page.h):
//   offset size field
//   32     8    tag: the chain's OverflowRef::tag, on every page
//   40     4    next page number (0: the last page)
//   44     4    bytes of the value on this page
//   48     ...  those bytes (at most kOverflowPayload)
// Stored on disk; never change the layout.
//
// Chains are immutable: written once (WriteOverflow, last page first, so
// each page is complete when written, in mtrs of kOverflowPagesPerMtr pages),
// read any number of times, freed once (FreeOverflow). A page is only ever
// written when it is allocated, so a reader that follows a reference to a
// chain freed meanwhile either finds the old bytes (still right) or a page
// of another use: ReadOverflow checks the type and the tag on every page and
// reports Corruption ("changed while read") for a reference that no longer
// names a chain. The engine frees only chains no reader it protects can
// reach (purge, rollback); a reader it does not protect (READ UNCOMMITTED)
// re-reads its record on that error.
//
// Crash safety: every page change is redo-logged through Mtr like any other.
// A crash between writing a chain and logging the record that refers to it,
// or in the middle of freeing one, leaves pages allocated that nothing
// refers to (lost space, never lost or wrong data).
//
// Thread-safety: free functions; concurrent calls on different chains are
// safe (allocation is serialised per space by the buffer pool). Must not be
// called inside an active Mtr of `pool` (each call commits its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/buffer/buffer_pool.h"

namespace sluice::storage {

inline constexpr size_t kOverflowTagOffset = kPageHeaderSize;
inline constexpr size_t kOverflowNextOffset = kPageHeaderSize + 8;
inline constexpr size_t kOverflowUsedOffset = kPageHeaderSize + 12;
inline constexpr size_t kOverflowDataOffset = kPageHeaderSize + 16;
inline constexpr size_t kOverflowPayload = kPageSize - kOverflowDataOffset;
// Pages written or freed per mini-transaction (each holds the space's
// allocation page until it commits).
inline constexpr size_t kOverflowPagesPerMtr = 16;

// Where a value lives: its first page, its length and the chain's tag.
struct OverflowRef {
  uint32_t first_page = 0;
  uint64_t length = 0;
  uint64_t tag = 0;
  friend bool operator==(const OverflowRef&, const OverflowRef&) = default;
};

// The reference as records store it: [version 1][first page u32][length
// u64][tag u64], little-endian, kOverflowRefSize bytes. Stored on disk.
inline constexpr size_t kOverflowRefSize = 21;
std::string EncodeOverflowRef(const OverflowRef& ref);
// Corruption for anything but a version-1 reference of the right size.
Result<OverflowRef> DecodeOverflowRef(std::string_view bytes);

// Writes `value` (non-empty) to a new chain of `space_id` tagged `tag` (the
// caller picks tags so that no two chains of a space share one).
Result<OverflowRef> WriteOverflow(BufferPool* pool, uint32_t space_id, std::string_view value, uint64_t tag);

// The value `ref` names. Corruption when a page on the way is not a page of
// that chain (freed and reused meanwhile, or damaged) or the lengths differ.
Result<std::string> ReadOverflow(BufferPool* pool, uint32_t space_id, const OverflowRef& ref);

// Frees every page of the chain. Stops with Corruption at a page that is
// not the chain's (freeing nothing of another chain).
Status FreeOverflow(BufferPool* pool, uint32_t space_id, const OverflowRef& ref);

}  // namespace sluice::storage
