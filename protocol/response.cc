// protocol/response.cc
#include "protocol/response.h"

#include "protocol/wire.h"

namespace sluice::protocol {

std::string EncodeOk(const OkPacket& ok, uint32_t capabilities, bool eof_header) {
  WireWriter w;
  w.Int1(eof_header ? 0xFE : 0x00).LenencInt(ok.affected_rows).LenencInt(ok.last_insert_id);
  if (capabilities & CLIENT_PROTOCOL_41) {
    w.Int2(ok.status_flags).Int2(ok.warnings);
  } else if (capabilities & CLIENT_TRANSACTIONS) {
    w.Int2(ok.status_flags);
  }
  // No SESSION_TRACK support, so the info field is written only when there
  // is something to say (as MySQL does).
  if (!ok.info.empty()) w.LenencString(ok.info);
  return w.Take();
}

std::string EncodeErr(const Status& status, bool protocol41) {
  return EncodeErr(status.mysql_errno(), status.sqlstate(), status.message(), protocol41);
}

std::string EncodeErr(uint16_t code, std::string_view sqlstate, std::string_view message,
                      bool protocol41) {
  WireWriter w;
  w.Int1(0xFF).Int2(code);
  if (protocol41) {
    std::string state(sqlstate.substr(0, 5));
    state.resize(5, '0');
    w.Int1('#').Bytes(state);
  }
  w.Bytes(message);
  return w.Take();
}

std::string EncodeEof(uint16_t warnings, uint16_t status_flags) {
  WireWriter w;
  w.Int1(0xFE).Int2(warnings).Int2(status_flags);
  return w.Take();
}

bool IsEofPacket(std::string_view payload) {
  return !payload.empty() && static_cast<uint8_t>(payload[0]) == 0xFE && payload.size() < 9;
}

std::string EncodeColumnDefinition(const ColumnDefinition& c) {
  WireWriter w;
  w.LenencString("def")
      .LenencString(c.schema)
      .LenencString(c.table)
      .LenencString(c.org_table)
      .LenencString(c.name)
      .LenencString(c.org_name)
      .LenencInt(0x0C)  // length of the fixed-size fields that follow
      .Int2(c.collation)
      .Int4(c.length)
      .Int1(c.type)
      .Int2(c.flags)
      .Int1(c.decimals)
      .Zeros(2);
  return w.Take();
}

std::string EncodeTextRow(const std::vector<std::optional<std::string>>& values) {
  WireWriter w;
  for (const auto& v : values) {
    if (v.has_value()) {
      w.LenencString(*v);
    } else {
      w.Int1(0xFB);
    }
  }
  return w.Take();
}

std::vector<std::string> EncodeTextResultSet(
    const std::vector<ColumnDefinition>& columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings) {
  const bool deprecate_eof = (capabilities & CLIENT_DEPRECATE_EOF) != 0;
  std::vector<std::string> packets;
  packets.reserve(columns.size() + rows.size() + 3);

  WireWriter count;
  count.LenencInt(columns.size());
  packets.push_back(count.Take());
  for (const auto& c : columns) packets.push_back(EncodeColumnDefinition(c));
  if (!deprecate_eof) packets.push_back(EncodeEof(warnings, status_flags));
  for (const auto& row : rows) packets.push_back(EncodeTextRow(row));
  if (deprecate_eof) {
    OkPacket ok;
    ok.status_flags = status_flags;
    ok.warnings = warnings;
    packets.push_back(EncodeOk(ok, capabilities, /*eof_header=*/true));
  } else {
    packets.push_back(EncodeEof(warnings, status_flags));
  }
  return packets;
}

}  // namespace sluice::protocol
