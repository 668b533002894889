#include "storage/trx/undo_record.h"

#include <string>

// Layout (all integers are LEB128 varints unless noted):
//   type (1 byte) | undo_no | table_id | pk_len | pk bytes
//   kUpdate/kDeleteMark add:
//   prev_trx_id | prev_roll_ptr (8 bytes, little endian) | flags (1 byte:
//   bit 0 = prev_delete_marked) | n_cols | n_cols x (column_id | len+1 |
//   bytes), where len+1 == 0 marks NULL.

namespace sluice::storage {
namespace {

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool Varint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) return false;
      uint8_t b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      r |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        *v = r;
        return true;
      }
    }
    return false;
  }
  bool Byte(uint8_t* b) {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_.front());
    in_.remove_prefix(1);
    return true;
  }
  bool Fixed64(uint64_t* v) {
    if (in_.size() < 8) return false;
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r |= uint64_t{static_cast<uint8_t>(in_[i])} << (8 * i);
    in_.remove_prefix(8);
    *v = r;
    return true;
  }
  bool Bytes(uint64_t n, std::string* out) {
    if (in_.size() < n) return false;
    out->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool empty() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

 private:
  std::string_view in_;
};

Status Bad(const char* what) { return Status::Corruption(std::string("undo record: ") + what); }

}  // namespace

void EncodeUndoRecord(const UndoRecord& rec, std::string* out) {
  out->push_back(static_cast<char>(rec.type));
  PutVarint(out, rec.undo_no);
  PutVarint(out, rec.table_id);
  PutVarint(out, rec.primary_key.size());
  out->append(rec.primary_key);
  if (rec.type == UndoType::kInsert) return;
  PutVarint(out, rec.prev_trx_id);
  PutFixed64(out, rec.prev_roll_ptr.raw());
  out->push_back(static_cast<char>(rec.prev_delete_marked ? 1 : 0));
  PutVarint(out, rec.before_image.size());
  for (const UndoColumn& c : rec.before_image) {
    PutVarint(out, c.column_id);
    if (!c.before) {
      PutVarint(out, 0);
    } else {
      PutVarint(out, c.before->size() + 1);
      out->append(*c.before);
    }
  }
}

Result<UndoRecord> DecodeUndoRecord(std::string_view bytes) {
  Reader r(bytes);
  UndoRecord rec;
  uint8_t type;
  if (!r.Byte(&type)) return Bad("empty");
  if (type < 1 || type > 3) return Bad("unknown type");
  rec.type = static_cast<UndoType>(type);
  uint64_t pk_len;
  if (!r.Varint(&rec.undo_no) || !r.Varint(&rec.table_id) || !r.Varint(&pk_len) ||
      !r.Bytes(pk_len, &rec.primary_key)) {
    return Bad("truncated header");
  }
  if (rec.type != UndoType::kInsert) {
    uint64_t roll = 0, n = 0;
    uint8_t flags = 0;
    if (!r.Varint(&rec.prev_trx_id) || !r.Fixed64(&roll) || !r.Byte(&flags) || !r.Varint(&n)) {
      return Bad("truncated update header");
    }
    if (flags > 1) return Bad("unknown flags");
    rec.prev_roll_ptr = RollPtr(roll);
    rec.prev_delete_marked = (flags & 1) != 0;
    // Each column takes at least two bytes: refuse absurd counts up front.
    if (n > r.remaining() / 2) return Bad("column count too large");
    rec.before_image.resize(n);
    for (UndoColumn& c : rec.before_image) {
      uint64_t id, len;
      if (!r.Varint(&id) || id > UINT32_MAX || !r.Varint(&len)) return Bad("truncated column");
      c.column_id = static_cast<uint32_t>(id);
      if (len == 0) continue;
      std::string v;
      if (!r.Bytes(len - 1, &v)) return Bad("truncated column bytes");
      c.before = std::move(v);
    }
  }
  if (!r.empty()) return Bad("trailing bytes");
  return rec;
}

}  // namespace sluice::storage
