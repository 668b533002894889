// protocol/text_rows.h
//
// TextRows: the rows of a text result set, each kept as the payload the
// text protocol sends for it (a length-encoded string per cell, 0xFB for
// NULL), one after another in one buffer. A row used to be a vector of
// optional strings: an allocation for the vector and one for every cell
// longer than a string's inline buffer, per row, and then an encoding pass
// to turn them into this form anyway. A producer writes its cells here in
// place (Open, cells, Close); the text protocol's reply copies the rows as
// they are, and the binary protocol reads their cells back (ForEachTextCell).
//
// Indexing (rows[i]) and iterating decode a row into a Cells copy: for
// tests, and for the few places that filter small result sets (SHOW ...
// LIKE / WHERE). Hot paths use payload(i).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/payloads.h"
#include "protocol/wire.h"

namespace sluice::protocol {

// One row's cells as values: NULL is nullopt.
using Cells = std::vector<std::optional<std::string>>;

// Calls fn(std::optional<std::string_view>) for each cell of a text row's
// payload, in order. False when the payload is not a sequence of
// length-encoded strings and NULLs (never so for rows TextRows wrote).
template <typename Fn>
bool ForEachTextCell(std::string_view payload, Fn&& fn) {
  WireReader r(payload);
  while (r.remaining() > 0) {
    if (static_cast<uint8_t>(payload[r.position()]) == 0xFB) {
      r.Skip(1);
      fn(std::optional<std::string_view>());
      continue;
    }
    std::string_view cell;
    if (!r.ReadLenencString(&cell)) return false;
    fn(std::optional<std::string_view>(cell));
  }
  return true;
}

// A text row's payload decoded into values.
inline Cells DecodeTextRow(std::string_view payload) {
  Cells out;
  ForEachTextCell(payload, [&](std::optional<std::string_view> c) {
    if (c) {
      out.emplace_back(std::in_place, *c);
    } else {
      out.emplace_back();
    }
  });
  return out;
}

class TextRows {
 public:
  // Writes one row's cells in place; TextRows::Close() ends the row.
  class RowWriter {
   public:
    explicit RowWriter(std::string* out) : out_(out) {}
    void Null() { out_->push_back(static_cast<char>(0xFB)); }
    void Cell(std::string_view text) { WireWriter(out_).LenencString(text); }
    void CellOrNull(const std::optional<std::string>& c) {
      if (c) {
        Cell(std::string_view(*c));
      } else {
        Null();
      }
    }
    void CellOrNull(std::optional<std::string_view> c) {
      if (c) {
        Cell(*c);
      } else {
        Null();
      }
    }

   private:
    std::string* out_;
  };

  RowWriter Open() { return RowWriter(rows_.Open()); }
  void Close() { rows_.Close(); }
  // Drops the row being written (Open() without its Close()).
  void Discard() { rows_.Discard(); }
  // A row given as values (rows of SHOW and the like).
  void push_back(const Cells& row) {
    RowWriter w = Open();
    for (const auto& c : row) w.CellOrNull(c);
    Close();
  }
  // A row already in the text protocol's form (another TextRows' payload).
  void AppendEncoded(std::string_view payload) { rows_.push_back(payload); }

  void reserve(size_t rows, size_t bytes) { rows_.reserve(rows, bytes); }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  size_t total_bytes() const { return rows_.total_bytes(); }
  std::string_view payload(size_t i) const { return rows_[i]; }
  Cells operator[](size_t i) const { return DecodeTextRow(payload(i)); }
  Cells back() const { return (*this)[size() - 1]; }
  std::vector<Cells> ToCells() const {
    std::vector<Cells> out;
    out.reserve(size());
    for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
    return out;
  }
  friend bool operator==(const TextRows& a, const TextRows& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a.payload(i) != b.payload(i)) return false;
    }
    return true;
  }
  friend bool operator==(const TextRows& a, const std::vector<Cells>& b) { return a.ToCells() == b; }
  void clear() { rows_.clear(); }

  // Keeps the rows whose decoded cells `keep` accepts, in order.
  template <typename Keep>
  void KeepIf(Keep&& keep) {
    Payloads kept;
    for (size_t i = 0; i < size(); ++i) {
      if (keep((*this)[i])) kept.push_back(payload(i));
    }
    rows_ = std::move(kept);
  }

  // Iterates the rows as decoded Cells (by value).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Cells;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Cells;
    const_iterator(const TextRows* rows, size_t i) : rows_(rows), i_(i) {}
    Cells operator*() const { return (*rows_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const TextRows* rows_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  Payloads rows_;
};

}  // namespace sluice::protocol
