#include "protocol/command.h"

#include "base/mysql_error.h"
#include "protocol/wire.h"

namespace sluice::protocol {

Result<uint32_t> ParseProcessKill(std::string_view body) {
  WireReader r(body);
  uint32_t id = 0;
  if (!r.ReadInt4(&id)) return MakeError(er::kMalformedPacket);
  return id;
}

Result<uint16_t> ParseSetOption(std::string_view body) {
  WireReader r(body);
  uint16_t option = 0;
  if (!r.ReadInt2(&option) || option > 1) return MakeError(er::kUnknownCom);
  return option;
}

FieldList ParseFieldList(std::string_view body) {
  FieldList f;
  size_t nul = body.find('\0');
  f.table = body.substr(0, nul);
  if (nul != std::string_view::npos) f.wildcard = body.substr(nul + 1);
  return f;
}

Result<uint32_t> ParseStatementId(std::string_view body) {
  WireReader r(body);
  uint32_t id = 0;
  if (!r.ReadInt4(&id)) return MakeError(er::kMalformedPacket);
  return id;
}

Result<RegisterReplica> ParseRegisterReplica(std::string_view body) {
  WireReader r(body);
  RegisterReplica out;
  uint8_t len = 0;
  bool ok = r.ReadInt4(&out.server_id) && r.ReadInt1(&len) && r.ReadFixed(len, &out.host) && r.ReadInt1(&len) &&
            r.ReadFixed(len, &out.user) && r.ReadInt1(&len) && r.ReadFixed(len, &out.password) &&
            r.ReadInt2(&out.port);
  if (!ok) return MakeError(er::kMalformedPacket);
  // rank and source_id are optional (old clients stop after the port).
  if (r.remaining() >= 8) {
    r.ReadInt4(&out.rank);
    r.ReadInt4(&out.source_id);
  }
  return out;
}

Result<BinlogDumpRequest> ParseBinlogDump(std::string_view body) {
  WireReader r(body);
  BinlogDumpRequest req;
  uint32_t pos = 0;
  if (!r.ReadInt4(&pos) || !r.ReadInt2(&req.flags) || !r.ReadInt4(&req.server_id)) {
    return MakeError(er::kMalformedPacket);
  }
  req.position = pos;
  req.file = r.ReadRest();
  // A trailing NUL some clients send is not part of the name.
  while (!req.file.empty() && req.file.back() == '\0') req.file.remove_suffix(1);
  return req;
}

Result<BinlogDumpRequest> ParseBinlogDumpGtid(std::string_view body) {
  WireReader r(body);
  BinlogDumpRequest req;
  req.gtid = true;
  uint32_t name_len = 0;
  if (!r.ReadInt2(&req.flags) || !r.ReadInt4(&req.server_id) || !r.ReadInt4(&name_len) ||
      !r.ReadFixed(name_len, &req.file) || !r.ReadInt8(&req.position)) {
    return MakeError(er::kMalformedPacket);
  }
  // MySQL always reads the GTID set (whatever BINLOG_THROUGH_GTID says).
  if (r.remaining() >= 4) {
    uint32_t size = 0;
    if (!r.ReadInt4(&size) || !r.ReadFixed(size, &req.gtid_data)) return MakeError(er::kMalformedPacket);
    req.has_gtid_data = true;
  }
  return req;
}

}  // namespace sluice::protocol
