#include "server/plugin_registry.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <spdlog/logger.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

#include "base/io/write_file_atomically.h"
#include "base/log.h"
#include "base/mysql_error.h"
#include "server/datadir.h"
#include "server/rpl/delegates.h"
#include "sluice/plugin.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace fs = std::filesystem;

// The C handle a plugin gets: points back at its Plugin.
struct sluice_plugin_handle {
  sluice::server::PluginRegistry::Plugin* plugin;
};

namespace sluice::server {

namespace {

// The descriptor members of ABI 1.0; a descriptor must be at least this big.
constexpr size_t kMinDescriptorSize = offsetof(sluice_plugin_descriptor, statusvars) + sizeof(void*);
// Bounds the walk of a library's descriptor array (a missing terminator).
constexpr size_t kMaxDescriptors = 64;

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

std::string AbiText(uint32_t v) {
  return fmt::format("{}.{}", SLUICE_PLUGIN_ABI_MAJOR_OF(v), SLUICE_PLUGIN_ABI_MINOR_OF(v));
}

// The error a plugin reported, or `fallback` when it left code 0.
Status PluginError(const sluice_plugin_error& e, Status fallback) {
  if (e.code == 0) return fallback;
  std::string state(e.sqlstate, strnlen(e.sqlstate, sizeof(e.sqlstate)));
  if (state.size() != 5) state = "HY000";
  return Status::MySQL(static_cast<uint16_t>(e.code), state,
                       std::string(e.message, strnlen(e.message, sizeof(e.message))));
}

// What every plugin the built-in list shows (clients.md: tools read these).
std::vector<PluginInfo> BuiltInPlugins() {
  auto make = [](std::string name, std::string type, std::string desc) {
    PluginInfo p;
    p.name = std::move(name);
    p.type = std::move(type);
    p.type_version = "80040.0";
    p.version = "1.0";
    p.author = "sluice";
    p.description = std::move(desc);
    p.load_option = "FORCE";
    return p;
  };
  return {make("binlog", "STORAGE ENGINE", "This is a pseudo storage engine to represent the binlog in a transaction"),
          make("mysql_native_password", "AUTHENTICATION", "Native MySQL authentication"),
          make("caching_sha2_password", "AUTHENTICATION", "Caching sha2 authentication"),
          make("InnoDB", "STORAGE ENGINE", "Supports transactions, row-level locking, and foreign keys")};
}

bool IsBuiltIn(std::string_view name) {
  for (const auto& p : BuiltInPlugins()) {
    if (EqualsNoCase(p.name, name)) return true;
  }
  return false;
}

// Lets calls into plugin code finish before the plugin goes: a caller
// Enter()s (and gets false once retired), the uninstaller Retire()s and
// waits until no call is inside. Both sides use sequentially consistent
// operations, so a caller either sees `retired` or is counted.
//
// A thread that makes many calls in a row (a dump thread sending a run of
// events to a semisync replica: three hooks an event) Pin()s the gate once
// for the run: its calls in between are counted by the pin, and Enter()
// then costs a plain load instead of two locked operations (which, after
// the stores of building a packet, were a fifth of such a dump thread's
// time: perf, bench/dump_cost.py --semisync). Retire() waits for a pin as
// for a call.
class CallGate {
 public:
  enum class Entry { kRefused, kEntered, kPinned };
  Entry Enter() {
    if (pinned_ == this) {
      // Counted by the pin; a retired gate still turns its calls away.
      return retired_.load(std::memory_order_relaxed) ? Entry::kRefused : Entry::kPinned;
    }
    in_flight_.fetch_add(1);
    if (retired_.load()) {
      in_flight_.fetch_sub(1);
      return Entry::kRefused;
    }
    return Entry::kEntered;
  }
  void Exit() { in_flight_.fetch_sub(1); }
  // Enter()s for this thread until Unpin(); one gate per thread at a time
  // (false: not pinned, calls enter one by one).
  bool Pin() {
    if (pinned_ != nullptr || Enter() != Entry::kEntered) return false;
    pinned_ = this;
    return true;
  }
  // Ends this thread's pin, if it holds one on this gate.
  void Unpin() {
    if (pinned_ != this) return;
    pinned_ = nullptr;
    Exit();
  }
  // No Enter() succeeds from now on.
  void MarkRetired() { retired_.store(true); }
  // MarkRetired() and waits for calls inside to leave.
  void Retire() {
    MarkRetired();
    while (in_flight_.load() != 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }

 private:
  static thread_local CallGate* pinned_;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<bool> retired_{false};
};
thread_local CallGate* CallGate::pinned_ = nullptr;

class GateScope {
 public:
  explicit GateScope(CallGate& g) : gate_(g), entry_(g.Enter()) {}
  ~GateScope() {
    if (entry_ == CallGate::Entry::kEntered) gate_.Exit();
  }
  bool entered() const { return entry_ != CallGate::Entry::kRefused; }

 private:
  CallGate& gate_;
  CallGate::Entry entry_;
};

Status HookError(const std::string& plugin, int rc) {
  return Status::MySQL(1105, "HY000", fmt::format("plugin '{}' returned {}", plugin, rc));
}

}  // namespace

// A dlopen()ed library; closed when the last Plugin or adapter holding it goes.
struct PluginRegistry::Library {
  void* handle = nullptr;
  std::string path;
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
};

namespace {

// One C observer struct adapted onto a delegate's C++ interface. Holds the
// library so that a snapshot still pointing at it keeps the code mapped.
struct AdapterBase {
  std::shared_ptr<PluginRegistry::Library> lib;
  std::string plugin;  // for error texts
  const void* key = nullptr;  // the plugin's struct, for unregister
  CallGate gate;
};

// Copies at most sizeof(T) of a plugin struct that says its own size.
template <typename T>
T CopyStruct(const T* in) {
  T out{};
  const size_t n = std::min<size_t>(in->struct_size, sizeof(T));
  std::memcpy(&out, in, n);
  return out;
}

class TransAdapter final : public rpl::TransObserver, public AdapterBase {
 public:
  explicit TransAdapter(const sluice_trans_observer* o) : c_(CopyStruct(o)) {}
  Status BeforeCommit(const Param& p) override { return Call(c_.before_commit, p); }
  Status AfterCommit(const Param& p) override { return Call(c_.after_commit, p); }
  Status AfterRollback(const Param& p) override { return Call(c_.after_rollback, p); }

 private:
  Status Call(int (*fn)(void*, const sluice_trans_param*), const Param& p) {
    if (fn == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Status::OK();
    sluice_trans_param cp{p.connection_id, p.gtid.data(), p.gtid.size(), p.log_file.data(), p.log_file.size(),
                          p.log_pos};
    int rc = fn(c_.user_data, &cp);
    return rc == 0 ? Status::OK() : HookError(plugin, rc);
  }
  sluice_trans_observer c_;
};

class StorageAdapter final : public rpl::BinlogStorageObserver, public AdapterBase {
 public:
  explicit StorageAdapter(const sluice_binlog_storage_observer* o) : c_(CopyStruct(o)) {}
  Status AfterFlush(std::string_view f, uint64_t pos) override { return Call(c_.after_flush, f, pos); }
  Status AfterSync(std::string_view f, uint64_t pos) override { return Call(c_.after_sync, f, pos); }

 private:
  Status Call(int (*fn)(void*, const char*, size_t, uint64_t), std::string_view f, uint64_t pos) {
    if (fn == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Status::OK();
    int rc = fn(c_.user_data, f.data(), f.size(), pos);
    return rc == 0 ? Status::OK() : HookError(plugin, rc);
  }
  sluice_binlog_storage_observer c_;
};

// The C view of a TransmitParam for one call; flags and observer_data are
// copied back after it.
struct CTransmitParam {
  explicit CTransmitParam(rpl::TransmitParam& p) : cpp(p) {
    c.server_id = p.server_id;
    c.connection_id = p.connection_id;
    c.dump_flags = p.dump_flags;
    c.host = p.host.c_str();
    c.flags = p.flags;
    c.observer_data = p.observer_data;
    c.user_var = &UserVar;
    c.server_data = &p;
    c.connection = reinterpret_cast<sluice_dump_connection*>(p.connection);
    c.socket_fd = p.connection != nullptr ? p.connection->fd() : -1;
    c.reads_wait_for_writes = p.connection != nullptr && p.connection->ReadsWaitForWrites() ? 1 : 0;
  }
  ~CTransmitParam() {
    cpp.flags = c.flags;
    cpp.observer_data = c.observer_data;
  }
  static int64_t UserVar(const sluice_transmit_param* param, const char* name, char* buf, size_t capacity) {
    const auto* p = static_cast<const rpl::TransmitParam*>(param->server_data);
    if (p == nullptr || !p->user_var || name == nullptr) return -1;
    std::string v = p->user_var(name);
    if (v.empty()) return -1;
    if (buf != nullptr && capacity > 0) {
      const size_t n = std::min(v.size(), capacity - 1);
      std::memcpy(buf, v.data(), n);
      buf[n] = '\0';
    }
    return static_cast<int64_t>(v.size());
  }
  rpl::TransmitParam& cpp;
  sluice_transmit_param c{};
};

class TransmitAdapter final : public rpl::BinlogTransmitObserver, public AdapterBase {
 public:
  explicit TransmitAdapter(const sluice_binlog_transmit_observer* o) : c_(CopyStruct(o)) {}

  Status TransmitStart(rpl::TransmitParam& p, std::string_view f, uint64_t pos) override {
    GateScope g(gate);
    if (!g.entered() || c_.transmit_start == nullptr) {
      // Retired, or no opinion: a plugin without transmit_start only
      // observes when it asks to.
      p.flags |= rpl::TransmitParam::kDontObserve;
      return Status::OK();
    }
    CTransmitParam cp(p);
    return Result(c_.transmit_start(c_.user_data, &cp.c, f.data(), f.size(), pos));
  }
  Status TransmitStop(rpl::TransmitParam& p) override {
    if (c_.transmit_stop == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Status::OK();
    CTransmitParam cp(p);
    return Result(c_.transmit_stop(c_.user_data, &cp.c));
  }
  Status ReserveHeader(rpl::TransmitParam& p, uint8_t* header, size_t capacity, size_t* len) override {
    *len = 0;
    if (c_.reserve_header == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Uninstalled();
    CTransmitParam cp(p);
    Status s = Result(c_.reserve_header(c_.user_data, &cp.c, header, capacity, len));
    *len = std::min(*len, capacity);
    return s;
  }
  Status BeforeSendEvent(rpl::TransmitParam& p, std::string& packet, std::string_view f, uint64_t pos) override {
    if (c_.before_send_event == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Uninstalled();
    CTransmitParam cp(p);
    return Result(c_.before_send_event(c_.user_data, &cp.c, reinterpret_cast<uint8_t*>(packet.data()), packet.size(),
                                       f.data(), f.size(), pos));
  }
  Status AfterSendEvent(rpl::TransmitParam& p, std::string_view event, std::string_view f, uint64_t pos) override {
    if (c_.after_send_event == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Uninstalled();
    CTransmitParam cp(p);
    return Result(c_.after_send_event(c_.user_data, &cp.c, reinterpret_cast<const uint8_t*>(event.data()),
                                      event.size(), f.data(), f.size(), pos));
  }
  void BeginEvents() override { (void)gate.Pin(); }
  void EndEvents() override { gate.Unpin(); }
  Status AfterResetMaster() override {
    if (c_.after_reset_master == nullptr) return Status::OK();
    GateScope g(gate);
    if (!g.entered()) return Status::OK();
    return Result(c_.after_reset_master(c_.user_data));
  }

 private:
  Status Result(int rc) const { return rc == 0 ? Status::OK() : HookError(plugin, rc); }
  // A connection the plugin observed cannot go on without it (a semisync
  // reader expects its packet header): it ends as if the reader had gone,
  // and the reader reconnects to a server without the plugin.
  Status Uninstalled() const { return Status::IOError(fmt::format("plugin '{}' was uninstalled", plugin)); }
  sluice_binlog_transmit_observer c_;
};

}  // namespace

struct PluginRegistry::Plugin {
  std::string name;  // as the descriptor spells it
  std::string soname;
  bool recorded = false;  // INSTALL PLUGIN (in plugin.tsv), not --plugin-load
  std::shared_ptr<Library> lib;
  sluice_plugin_descriptor desc{};
  PluginRegistry* registry = nullptr;
  rpl::Registry* replication = nullptr;
  sluice_plugin_handle handle{this};
  sluice_plugin_services services{};
  // Gates the variable callbacks (captured by the variable registries,
  // which may run them after Unregister() returned).
  std::shared_ptr<CallGate> var_gate = std::make_shared<CallGate>();
  std::shared_ptr<std::atomic<void*>> plugin_data = std::make_shared<std::atomic<void*>>(nullptr);
  std::vector<std::string> sysvars;     // canonical names registered
  std::vector<std::string> statusvars;  // names (and aliases) registered
  bool initialized = false;

  Mutex obs_mu;
  // Registered observers, and ones the plugin unregistered (waited for at
  // UNINSTALL before deinit).
  std::vector<std::shared_ptr<TransAdapter>> trans GUARDED_BY(obs_mu);
  std::vector<std::shared_ptr<StorageAdapter>> storage GUARDED_BY(obs_mu);
  std::vector<std::shared_ptr<TransmitAdapter>> transmit GUARDED_BY(obs_mu);
  std::vector<std::shared_ptr<AdapterBase>> unregistered GUARDED_BY(obs_mu);
};

namespace {

using Plugin = PluginRegistry::Plugin;

// --------------------------------------------------------------- services

void SvcLog(sluice_plugin_handle* h, sluice_log_level level, const char* message) {
  if (h == nullptr || h->plugin == nullptr || message == nullptr) return;
  Plugin& p = *h->plugin;
  auto log = p.registry != nullptr ? base::GetLogger("server") : nullptr;
  if (!log) return;
  spdlog::level::level_enum lvl = spdlog::level::info;
  switch (level) {
    case SLUICE_LOG_ERROR: lvl = spdlog::level::err; break;
    case SLUICE_LOG_WARNING: lvl = spdlog::level::warn; break;
    case SLUICE_LOG_INFO: lvl = spdlog::level::debug; break;
    case SLUICE_LOG_SYSTEM: lvl = spdlog::level::info; break;
  }
  log->log(lvl, "[MY-{:06d}] [Server] Plugin {} reported: '{}'", 11116, p.name, message);
}

template <typename Adapter, typename CStruct, typename Observer>
int RegisterObserver(sluice_plugin_handle* h, const CStruct* o, std::vector<std::shared_ptr<Adapter>> Plugin::*list,
                     rpl::Delegate<Observer>& (rpl::Registry::*delegate)(), rpl::Registry* reg) {
  if (h == nullptr || h->plugin == nullptr || o == nullptr || reg == nullptr) return 1;
  if (o->struct_size < offsetof(CStruct, user_data) + sizeof(void*)) return 1;
  Plugin& p = *h->plugin;
  MutexLock lock(&p.obs_mu);
  for (const auto& a : p.*list) {
    if (a->key == o) return 1;
  }
  auto adapter = std::make_shared<Adapter>(o);
  adapter->lib = p.lib;
  adapter->plugin = p.name;
  adapter->key = o;
  if (!(reg->*delegate)().Add(adapter.get(), adapter).ok()) return 1;
  (p.*list).push_back(std::move(adapter));
  return 0;
}

template <typename Adapter, typename CStruct, typename Observer>
int UnregisterObserver(sluice_plugin_handle* h, const CStruct* o, std::vector<std::shared_ptr<Adapter>> Plugin::*list,
                       rpl::Delegate<Observer>& (rpl::Registry::*delegate)(), rpl::Registry* reg) {
  if (h == nullptr || h->plugin == nullptr || o == nullptr || reg == nullptr) return 1;
  Plugin& p = *h->plugin;
  MutexLock lock(&p.obs_mu);
  auto& v = p.*list;
  auto it = std::find_if(v.begin(), v.end(), [o](const auto& a) { return a->key == o; });
  if (it == v.end()) return 1;
  (reg->*delegate)().Remove(it->get());
  // Not waited for here: the plugin may unregister from inside a hook of
  // this very observer. UNINSTALL waits for it before deinit.
  (*it)->gate.MarkRetired();
  p.unregistered.push_back(*it);
  v.erase(it);
  return 0;
}

rpl::Registry* Rpl(sluice_plugin_handle* h) {
  return h != nullptr && h->plugin != nullptr ? h->plugin->replication : nullptr;
}

int SvcRegTrans(sluice_plugin_handle* h, const sluice_trans_observer* o) {
  return RegisterObserver<TransAdapter>(h, o, &Plugin::trans, &rpl::Registry::trans, Rpl(h));
}
int SvcUnregTrans(sluice_plugin_handle* h, const sluice_trans_observer* o) {
  return UnregisterObserver<TransAdapter>(h, o, &Plugin::trans, &rpl::Registry::trans, Rpl(h));
}
int SvcRegStorage(sluice_plugin_handle* h, const sluice_binlog_storage_observer* o) {
  return RegisterObserver<StorageAdapter>(h, o, &Plugin::storage, &rpl::Registry::storage, Rpl(h));
}
int SvcUnregStorage(sluice_plugin_handle* h, const sluice_binlog_storage_observer* o) {
  return UnregisterObserver<StorageAdapter>(h, o, &Plugin::storage, &rpl::Registry::storage, Rpl(h));
}
int SvcRegTransmit(sluice_plugin_handle* h, const sluice_binlog_transmit_observer* o) {
  return RegisterObserver<TransmitAdapter>(h, o, &Plugin::transmit, &rpl::Registry::transmit, Rpl(h));
}
int SvcUnregTransmit(sluice_plugin_handle* h, const sluice_binlog_transmit_observer* o) {
  return UnregisterObserver<TransmitAdapter>(h, o, &Plugin::transmit, &rpl::Registry::transmit, Rpl(h));
}

// A dump connection's other direction (ABI 1.1). A plugin built with 1.3
// or later may be answered 2 (a write in progress holds the connection);
// an older one waits for the write.
int SvcDumpReadPacket(sluice_plugin_handle* h, sluice_dump_connection* c, uint8_t* buf, size_t capacity,
                      size_t* len) {
  if (c == nullptr || buf == nullptr || len == nullptr) return -1;
  const bool defer = h != nullptr && h->plugin != nullptr && SLUICE_PLUGIN_ABI_MINOR_OF(h->plugin->desc.abi_version) >= 3;
  thread_local std::string payload;
  const int rc = reinterpret_cast<rpl::DumpConnection*>(c)->ReadPacket(&payload, capacity, defer);
  static_assert(rpl::DumpConnection::kBusy == 2, "dump_read_packet's answer (include/sluice/plugin.h)");
  if (rc != 1) return rc;
  std::memcpy(buf, payload.data(), payload.size());
  *len = payload.size();
  return 1;
}

int SvcDumpFlush(sluice_plugin_handle*, sluice_dump_connection* c, int32_t next_sequence_id) {
  if (c == nullptr) return 1;
  return reinterpret_cast<rpl::DumpConnection*>(c)->Flush(next_sequence_id > 255 ? -1 : next_sequence_id).ok() ? 0
                                                                                                               : 1;
}

void SvcDumpClose(sluice_plugin_handle*, sluice_dump_connection* c) {
  if (c != nullptr) reinterpret_cast<rpl::DumpConnection*>(c)->Close();
}

int SvcSetReaderLimit(sluice_plugin_handle* h, const char* file, size_t len, uint64_t pos) {
  rpl::Registry* reg = Rpl(h);
  if (reg == nullptr) return 1;
  return reg->SetReaderLimit(file == nullptr ? std::string_view() : std::string_view(file, len), pos) ? 0 : 1;
}

// --------------------------------------------------------------- variables

struct VarCtx {
  sluice_sysvar sv;  // copy of the plugin's declaration
  std::string name;  // sv.name, owned (the library may go before the registry lets go)
  std::vector<std::string> enum_names;
  std::shared_ptr<CallGate> gate;
  std::shared_ptr<std::atomic<void*>> plugin_data;
};

// A registry value (Get() form) as the plugin sees it; `text` backs value.s.
sluice_var_value ToC(const VarCtx& v, const sql::Value& value, std::string* text) {
  sluice_var_value out{};
  switch (v.sv.type) {
    case SLUICE_VAR_BOOL:
    case SLUICE_VAR_INT: out.i = value.ToInt(); break;
    case SLUICE_VAR_UINT: out.u = value.ToUInt(); break;
    case SLUICE_VAR_ENUM: {
      const std::string t = value.ToString();
      out.u = 0;
      for (size_t i = 0; i < v.enum_names.size(); ++i) {
        if (EqualsNoCase(v.enum_names[i], t)) out.u = i;
      }
      break;
    }
    case SLUICE_VAR_STRING:
      if (!value.is_null()) {
        *text = value.ToString();
        out.s = text->c_str();
      }
      break;
  }
  return out;
}

void WriteStorage(const VarCtx& v, const sluice_var_value& c) {
  void* st = v.sv.storage;
  if (st == nullptr) return;
  switch (v.sv.type) {
    case SLUICE_VAR_BOOL: __atomic_store_n(static_cast<int32_t*>(st), c.i != 0 ? 1 : 0, __ATOMIC_RELAXED); break;
    case SLUICE_VAR_INT: __atomic_store_n(static_cast<int64_t*>(st), c.i, __ATOMIC_RELAXED); break;
    case SLUICE_VAR_UINT:
    case SLUICE_VAR_ENUM: __atomic_store_n(static_cast<uint64_t*>(st), c.u, __ATOMIC_RELAXED); break;
    case SLUICE_VAR_STRING: {
      if (v.sv.string_capacity == 0) break;
      char* buf = static_cast<char*>(st);
      const char* s = c.s != nullptr ? c.s : "";
      const size_t n = std::min(std::strlen(s), v.sv.string_capacity - 1);
      std::memcpy(buf, s, n);
      buf[n] = '\0';
      break;
    }
  }
}

Result<vars::VariableSpec> MakeSpec(const std::shared_ptr<VarCtx>& ctx) {
  const sluice_sysvar& sv = ctx->sv;
  const std::string help = sv.help != nullptr ? sv.help : "";
  vars::VariableSpec spec;
  switch (sv.type) {
    case SLUICE_VAR_BOOL:
      spec = vars::VariableSpec::Bool(sv.name, vars::VarScope::kGlobal, sv.default_int != 0, help);
      break;
    case SLUICE_VAR_INT:
      spec = vars::VariableSpec::Int(sv.name, vars::VarScope::kGlobal, sv.default_int, sv.min_int, sv.max_int, help);
      break;
    case SLUICE_VAR_UINT:
      spec = vars::VariableSpec::UInt(sv.name, vars::VarScope::kGlobal, sv.default_uint, sv.min_uint, sv.max_uint,
                                      help);
      break;
    case SLUICE_VAR_ENUM:
      if (ctx->enum_names.empty() || sv.default_uint >= ctx->enum_names.size()) {
        return Status::InvalidArgument(fmt::format("variable '{}': bad enum names or default", sv.name));
      }
      spec = vars::VariableSpec::Enum(sv.name, vars::VarScope::kGlobal, ctx->enum_names,
                                      ctx->enum_names[sv.default_uint], help);
      break;
    case SLUICE_VAR_STRING:
      spec = vars::VariableSpec::String(
          sv.name, vars::VarScope::kGlobal,
          sv.default_string != nullptr ? std::optional<std::string>(sv.default_string) : std::nullopt, help);
      if (sv.flags & SLUICE_VAR_NULLABLE) spec.Nullable();
      break;
    default:
      return Status::InvalidArgument(fmt::format("variable '{}': unknown type {}", sv.name, static_cast<int>(sv.type)));
  }
  if (sv.flags & SLUICE_VAR_READONLY) spec.ReadOnly();
  if (sv.flags & SLUICE_VAR_NOPERSIST) spec.NotPersistable();
  if (sv.alias != nullptr && *sv.alias != '\0') spec.Alias(sv.alias);
  if (sv.type == SLUICE_VAR_STRING && sv.storage != nullptr) {
    spec.Check([ctx](vars::SetScope, sql::Value* value, const vars::SessionVariables*) -> Status {
      if (!value->is_null() && value->ToString().size() >= ctx->sv.string_capacity) {
        return MakeError(er::kWrongValueForVar, ctx->name, value->ToString());
      }
      return Status::OK();
    });
  }
  if (sv.check != nullptr) {
    spec.Check([ctx](vars::SetScope, sql::Value* value, const vars::SessionVariables*) -> Status {
      GateScope g(*ctx->gate);
      if (!g.entered()) return Status::OK();
      std::string text;
      sluice_var_value c = ToC(*ctx, *value, &text);
      sluice_plugin_error err{};
      if (ctx->sv.check(ctx->plugin_data->load(), &c, &err) != 0) {
        return PluginError(err, MakeError(er::kWrongValueForVar, ctx->name,
                                          value->is_null() ? std::string("NULL") : value->ToString()));
      }
      return Status::OK();
    });
  }
  spec.OnUpdate([ctx](vars::SetScope, const sql::Value& value, vars::SessionVariables*) {
    GateScope g(*ctx->gate);
    if (!g.entered()) return;
    std::string text;
    sluice_var_value c = ToC(*ctx, value, &text);
    WriteStorage(*ctx, c);
    if (ctx->sv.on_update != nullptr) ctx->sv.on_update(ctx->plugin_data->load(), &c);
  });
  if (sv.get != nullptr) {
    spec.Getter([ctx](const vars::SessionVariables*) -> sql::Value {
      GateScope g(*ctx->gate);
      if (!g.entered()) return sql::Value::Null();
      sluice_var_value c{};
      char buf[1024] = {0};
      ctx->sv.get(ctx->plugin_data->load(), &c, buf, sizeof(buf));
      switch (ctx->sv.type) {
        case SLUICE_VAR_BOOL: return sql::Value::Int(c.i != 0 ? 1 : 0);
        case SLUICE_VAR_INT: return sql::Value::Int(c.i);
        case SLUICE_VAR_UINT: return sql::Value::UInt(c.u);
        case SLUICE_VAR_ENUM:
          return c.u < ctx->enum_names.size() ? sql::Value::String(ctx->enum_names[c.u]) : sql::Value::Null();
        case SLUICE_VAR_STRING: return c.s != nullptr ? sql::Value::String(c.s) : sql::Value::Null();
      }
      return sql::Value::Null();
    });
  }
  return spec;
}

std::string FormatStatus(const sluice_statusvar& sv, const sluice_status_value& v) {
  switch (sv.type) {
    case SLUICE_STATUS_INT: return std::to_string(v.i);
    case SLUICE_STATUS_UINT: return std::to_string(v.u);
    case SLUICE_STATUS_BOOL: return v.i != 0 ? "ON" : "OFF";
    case SLUICE_STATUS_DOUBLE: return fmt::format("{}", v.d);
    case SLUICE_STATUS_STRING: return std::string(v.text, strnlen(v.text, sizeof(v.text)));
  }
  return "";
}

bool ValidName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r' || c == '\0'; });
}

// A plain file name: MySQL refuses any directory separator (1124).
bool PlainFileName(std::string_view s) { return s.find('/') == std::string_view::npos && s.find('\\') == std::string_view::npos; }

}  // namespace

PluginRegistry::PluginRegistry(Options options)
    : options_(std::move(options)), log_(options_.log ? options_.log : base::GetLogger("server")) {}

PluginRegistry::~PluginRegistry() { Shutdown(); }

std::string PluginRegistry::RecordPath() const {
  return (fs::path(options_.datadir) / "mysql" / "plugin.tsv").string();
}

Result<std::vector<std::pair<std::string, std::string>>> PluginRegistry::ParsePluginLoad(std::string_view value) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(';', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view item = value.substr(start, end - start);
    start = end + 1;
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back("", std::string(item));
    } else {
      std::string name(item.substr(0, eq)), lib(item.substr(eq + 1));
      if (name.empty() || lib.empty()) {
        return Status::InvalidArgument(fmt::format("plugin-load: malformed item '{}'", item));
      }
      out.emplace_back(std::move(name), std::move(lib));
    }
  }
  if (out.empty()) return Status::InvalidArgument("plugin-load: empty value");
  return out;
}

Status PluginRegistry::Install(std::string_view name, std::string_view soname) {
  MutexLock lock(&mu_);
  if (shut_down_) return MakeError(er::kUnknown, "the server is shutting down");
  return InstallLocked(name, soname, /*record=*/true, /*write=*/true);
}

Status PluginRegistry::InstallLocked(std::string_view name, std::string_view soname, bool record, bool write) {
  if (!PlainFileName(soname)) return MakeError(er::kUdfNoPaths);
  if (!name.empty()) {
    if (!ValidName(name)) return MakeError(er::kWrongArguments, "INSTALL PLUGIN");
    if (IsBuiltIn(name)) return MakeError(er::kUdfExists, name);
    for (const auto& p : plugins_) {
      if (EqualsNoCase(p->name, name)) return MakeError(er::kUdfExists, name);
    }
    for (const auto& r : not_loaded_) {
      if (EqualsNoCase(r.first, name)) return MakeError(er::kUdfExists, name);
    }
  }
  const std::string path = (fs::path(options_.plugin_dir) / std::string(soname)).string();
  if (soname.empty() || !ValidName(soname)) return MakeError(er::kCantOpenLibrary, path, 0, "invalid library name");
  errno = 0;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const int err = errno;
    const char* text = dlerror();
    return MakeError(er::kCantOpenLibrary, path, err, text != nullptr ? text : "unknown error");
  }
  auto lib = std::make_shared<Library>();
  lib->handle = handle;
  lib->path = path;
  const auto* base = static_cast<const char*>(dlsym(handle, SLUICE_PLUGIN_DECLARATIONS_SYMBOL));
  if (base == nullptr) return MakeError(er::kCantFindDlEntry, SLUICE_PLUGIN_DECLARATIONS_SYMBOL);

  // abi_version and struct_size lead every descriptor of every ABI version;
  // the first entry's struct_size is the array's stride (a plugin built for
  // an older minor has smaller entries). Another major: nothing else of the
  // layout can be trusted.
  uint32_t first_version = 0, stride = 0;
  std::memcpy(&first_version, base, sizeof(first_version));
  std::memcpy(&stride, base + sizeof(uint32_t), sizeof(stride));
  const bool terminator_only = first_version == 0 && stride == 0;
  if (!terminator_only && (SLUICE_PLUGIN_ABI_MAJOR_OF(first_version) != SLUICE_PLUGIN_ABI_MAJOR ||
                           SLUICE_PLUGIN_ABI_MINOR_OF(first_version) > SLUICE_PLUGIN_ABI_MINOR)) {
    return MakeError(er::kCantOpenLibrary, path, 0,
                     fmt::format("the library was built for plugin ABI {}, the server has {}", AbiText(first_version),
                                 AbiText(SLUICE_PLUGIN_ABI_VERSION)));
  }
  if (!terminator_only &&
      (stride < kMinDescriptorSize || stride > 4096 || stride % alignof(sluice_plugin_descriptor) != 0)) {
    return MakeError(er::kCantOpenLibrary, path, 0, "malformed plugin descriptor array");
  }

  // The descriptors to load (copies, members beyond the plugin's size
  // zeroed): the named one, or (library-only form) all.
  std::vector<sluice_plugin_descriptor> chosen;
  for (size_t i = 0; !terminator_only && i < kMaxDescriptors; ++i) {
    sluice_plugin_descriptor d{};
    std::memcpy(&d, base + i * stride, std::min<size_t>(stride, sizeof(d)));
    if (d.name == nullptr) break;
    if (!name.empty() && !EqualsNoCase(d.name, name)) continue;
    if (d.abi_version != first_version || d.struct_size != stride || d.init == nullptr) {
      return MakeError(er::kCantOpenLibrary, path, 0,
                       fmt::format("plugin '{}' has a malformed descriptor", d.name));
    }
    d.struct_size = static_cast<uint32_t>(std::min<size_t>(stride, sizeof(d)));
    chosen.push_back(d);
  }
  if (chosen.empty()) return MakeError(er::kCantFindDlEntry, name.empty() ? std::string_view("plugin") : name);
  if (name.empty()) {
    // Library-only form: every plugin of it must be new.
    for (const auto& d : chosen) {
      if (!ValidName(d.name)) return MakeError(er::kWrongArguments, "plugin-load");
      if (IsBuiltIn(d.name)) return MakeError(er::kUdfExists, d.name);
      for (const auto& p : plugins_) {
        if (EqualsNoCase(p->name, d.name)) return MakeError(er::kUdfExists, d.name);
      }
    }
  }
  const size_t first_new = plugins_.size();
  for (const auto& d : chosen) {
    Status s = LoadOneLocked(d.name, std::string(soname), lib, &d);
    if (!s.ok()) {
      // Undo the ones of this library loaded so far.
      while (plugins_.size() > first_new) {
        UnloadLocked(*plugins_.back());
        plugins_.pop_back();
      }
      return s;
    }
    plugins_.back()->recorded = record;
  }
  if (record && write && !options_.datadir.empty()) {
    Status s = WriteRecordLocked();
    if (!s.ok()) {
      while (plugins_.size() > first_new) {
        UnloadLocked(*plugins_.back());
        plugins_.pop_back();
      }
      return s;
    }
  }
  return Status::OK();
}

Status PluginRegistry::LoadOneLocked(const std::string& name, const std::string& soname,
                                     const std::shared_ptr<Library>& lib, const void* descriptor) {
  const auto* d = static_cast<const sluice_plugin_descriptor*>(descriptor);
  auto plugin = std::make_unique<Plugin>();
  Plugin& p = *plugin;
  p.name = name;
  p.soname = soname;
  p.lib = lib;
  p.registry = this;
  p.replication = options_.replication;
  std::memcpy(&p.desc, d, std::min<size_t>(d->struct_size, sizeof(p.desc)));
  p.services.abi_version = SLUICE_PLUGIN_ABI_VERSION;
  p.services.struct_size = sizeof(sluice_plugin_services);
  p.services.handle = &p.handle;
  p.services.log = &SvcLog;
  p.services.register_trans_observer = &SvcRegTrans;
  p.services.unregister_trans_observer = &SvcUnregTrans;
  p.services.register_binlog_storage_observer = &SvcRegStorage;
  p.services.unregister_binlog_storage_observer = &SvcUnregStorage;
  p.services.register_binlog_transmit_observer = &SvcRegTransmit;
  p.services.unregister_binlog_transmit_observer = &SvcUnregTransmit;
  p.services.dump_read_packet = &SvcDumpReadPacket;
  p.services.dump_flush = &SvcDumpFlush;
  p.services.dump_close = &SvcDumpClose;
  p.services.set_reader_limit = &SvcSetReaderLimit;

  auto fail = [&](Status s) REQUIRES(mu_) {
    UnloadLocked(p);
    return s;
  };
  auto init_failed = [&](const std::string& why) {
    return MakeError(er::kCantInitializeUdf, name, why);
  };

  // System variables first, so that init() sees their values.
  if (p.desc.sysvars != nullptr && options_.sys_vars != nullptr) {
    for (const sluice_sysvar* sv = p.desc.sysvars; sv->name != nullptr; ++sv) {
      auto ctx = std::make_shared<VarCtx>();
      ctx->sv = *sv;
      ctx->name = sv->name;
      ctx->gate = p.var_gate;
      ctx->plugin_data = p.plugin_data;
      if (sv->type == SLUICE_VAR_ENUM && sv->enum_names != nullptr) {
        for (const char* const* n = sv->enum_names; *n != nullptr && ctx->enum_names.size() < 64; ++n) {
          ctx->enum_names.emplace_back(*n);
        }
      }
      Result<vars::VariableSpec> spec = MakeSpec(ctx);
      if (!spec.ok()) return fail(init_failed(spec.status().message()));
      Status s = options_.sys_vars->Register(std::move(spec).value());
      // (semisync_master.so beside semisync_source.so: the same variables.)
      if (!s.ok()) return fail(init_failed(s.message() + " by another plugin or the server"));
      p.sysvars.emplace_back(sv->name);
      ApplyStartupValue(*sv);
      Result<sql::Value> v = options_.sys_vars->Get(sv->name, vars::GetScope::kGlobal, nullptr);
      if (v.ok() && sv->get == nullptr) {
        std::string text;
        WriteStorage(*ctx, ToC(*ctx, v.value(), &text));
      }
    }
  }

  sluice_plugin_error err{};
  void* data = nullptr;
  if (p.desc.init(&p.services, &data, &err) != 0) {
    return fail(PluginError(err, init_failed("Plugin initialization function failed.")));
  }
  p.plugin_data->store(data);
  p.initialized = true;

  if (p.desc.statusvars != nullptr && options_.status_vars != nullptr) {
    for (const sluice_statusvar* sv = p.desc.statusvars; sv->name != nullptr; ++sv) {
      const sluice_statusvar copy = *sv;
      std::shared_ptr<CallGate> gate = p.var_gate;
      std::shared_ptr<std::atomic<void*>> pdata = p.plugin_data;
      auto provider = [copy, gate, pdata](const vars::SessionStatus*) -> std::string {
        GateScope g(*gate);
        if (!g.entered()) return "";
        sluice_status_value v{};
        if (copy.get != nullptr) {
          copy.get(pdata->load(), &v);
        } else if (copy.counter != nullptr) {
          switch (copy.type) {
            case SLUICE_STATUS_BOOL:
              v.i = __atomic_load_n(static_cast<const int32_t*>(copy.counter), __ATOMIC_RELAXED);
              break;
            case SLUICE_STATUS_INT:
              v.i = __atomic_load_n(static_cast<const int64_t*>(copy.counter), __ATOMIC_RELAXED);
              break;
            case SLUICE_STATUS_UINT:
              v.u = __atomic_load_n(static_cast<const uint64_t*>(copy.counter), __ATOMIC_RELAXED);
              break;
            default: break;
          }
        }
        return FormatStatus(copy, v);
      };
      for (const char* n : {sv->name, sv->alias}) {
        if (n == nullptr || *n == '\0') continue;
        Status s = options_.status_vars->RegisterProvider(n, sv->name, provider);
        if (!s.ok()) return fail(init_failed(fmt::format("status variable '{}': {}", n, s.message())));
        p.statusvars.emplace_back(n);
      }
    }
  }
  SLUICE_LOG_SYSTEM(log_, 11116, "Plugin '{}' ({}) installed from '{}'", name,
                    p.desc.version != nullptr ? p.desc.version : "", lib->path);
  plugins_.push_back(std::move(plugin));
  return Status::OK();
}

void PluginRegistry::ApplyStartupValue(const sluice_sysvar& sv) {
  const std::string alias = sv.alias != nullptr ? sv.alias : "";
  const std::string* text = nullptr;
  for (const auto& [name, value] : options_.startup_values) {
    if (EqualsNoCase(name, sv.name) || (!alias.empty() && EqualsNoCase(name, alias))) text = &value;
  }
  if (text == nullptr) return;
  if (options_.sys_vars->IsPersisted(sv.name) || (!alias.empty() && options_.sys_vars->IsPersisted(alias))) return;
  std::vector<Status> warnings;
  Status s = options_.sys_vars->SetStartupValue(sv.name, *text, &warnings);
  if (!s.ok()) SLUICE_LOG_WARNING(log_, 10000, "Plugin variable '{}': {}", sv.name, s.message());
  for (const Status& w : warnings) SLUICE_LOG_WARNING(log_, 10000, "Plugin variable '{}': {}", sv.name, w.message());
}

void PluginRegistry::UnloadLocked(Plugin& p) {
  // 1. No new hook call reaches the plugin; wait for those in flight.
  std::vector<std::shared_ptr<AdapterBase>> adapters;
  rpl::Registry* reg = options_.replication;
  {
    MutexLock lock(&p.obs_mu);
    for (auto& a : p.trans) {
      if (reg) reg->trans().Remove(a.get());
      adapters.push_back(a);
    }
    for (auto& a : p.storage) {
      if (reg) reg->storage().Remove(a.get());
      adapters.push_back(a);
    }
    for (auto& a : p.transmit) {
      if (reg) reg->transmit().Remove(a.get());
      adapters.push_back(a);
    }
    for (auto& a : p.unregistered) adapters.push_back(a);
    p.trans.clear();
    p.storage.clear();
    p.transmit.clear();
    p.unregistered.clear();
  }
  if (reg != nullptr && !adapters.empty()) {
    // Frees the retired snapshots (and their references to the adapters)
    // once no hook walk can still see them, so the library can be closed.
    reg->trans().Synchronize();
    reg->storage().Synchronize();
    reg->transmit().Synchronize();
  }
  // Calls through a TransmitSession (which holds its adapters itself).
  for (auto& a : adapters) a->gate.Retire();
  // 2. Its variables go (1193 from now on); wait for callbacks in flight.
  if (options_.status_vars != nullptr) {
    for (const auto& n : p.statusvars) (void)options_.status_vars->Unregister(n);
  }
  if (options_.sys_vars != nullptr) {
    for (const auto& n : p.sysvars) (void)options_.sys_vars->Unregister(n);
  }
  p.statusvars.clear();
  p.sysvars.clear();
  p.var_gate->Retire();
  // 3. deinit. The library stays mapped while an adapter (held by an
  // observer snapshot) or another plugin of it holds `lib`.
  if (p.initialized && p.desc.deinit != nullptr) p.desc.deinit(p.plugin_data->load());
  p.initialized = false;
}

Status PluginRegistry::Uninstall(std::string_view name) {
  MutexLock lock(&mu_);
  if (IsBuiltIn(name)) return MakeError(er::kPluginDeleteBuiltin);
  auto it = std::find_if(plugins_.begin(), plugins_.end(),
                         [&](const auto& p) { return EqualsNoCase(p->name, name); });
  if (it == plugins_.end()) {
    // Recorded but not loaded at start: UNINSTALL drops the record.
    auto nl = std::find_if(not_loaded_.begin(), not_loaded_.end(),
                           [&](const auto& r) { return EqualsNoCase(r.first, name); });
    if (nl == not_loaded_.end()) return MakeError(er::kSpDoesNotExist, "PLUGIN", name);
    not_loaded_.erase(nl);
    return options_.datadir.empty() ? Status::OK() : WriteRecordLocked();
  }
  Plugin& p = **it;
  if (p.desc.check_uninstall != nullptr) {
    sluice_plugin_error err{};
    GateScope g(*p.var_gate);
    if (g.entered() && p.desc.check_uninstall(p.plugin_data->load(), &err) != 0) {
      return PluginError(err, MakeError(er::kPluginCannotBeUninstalled, p.name, "The plugin refused."));
    }
  }
  const bool recorded = p.recorded;
  UnloadLocked(p);
  SLUICE_LOG_SYSTEM(log_, 11116, "Plugin '{}' uninstalled", p.name);
  plugins_.erase(it);
  if (recorded && !options_.datadir.empty()) return WriteRecordLocked();
  return Status::OK();
}

Status PluginRegistry::WriteRecordLocked() {
  std::string out;
  for (const auto& p : plugins_) {
    if (p->recorded) out += p->name + "\t" + p->soname + "\n";
  }
  for (const auto& [name, lib] : not_loaded_) out += name + "\t" + lib + "\n";
  // <datadir>/mysql (there already after start-up, not in every test): a
  // failure to create it shows in the write.
  (void)io::CreateDirectories(file_system(), fs::path(RecordPath()).parent_path().string());
  return WriteFileAtomic(file_system(), RecordPath(), out);
}

void PluginRegistry::LoadAtStart(const std::vector<std::string>& plugin_load) {
  MutexLock lock(&mu_);
  Result<std::optional<std::string>> text = std::optional<std::string>();  // nothing installed
  if (!options_.datadir.empty()) text = io::ReadFileIfExists(file_system(), RecordPath());
  if (!text.ok()) {
    SLUICE_LOG_ERROR(log_, 10000, "Could not read '{}': {}; no installed plugin loaded", RecordPath(),
                     text.status().message());
  } else if (text->has_value()) {
    std::istringstream in(**text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const size_t tab = line.find('\t');
      if (tab == std::string::npos) {
        SLUICE_LOG_ERROR(log_, 10000, "'{}': malformed line skipped", RecordPath());
        continue;
      }
      const std::string name = line.substr(0, tab), lib = line.substr(tab + 1);
      Status s = InstallLocked(name, lib, /*record=*/true, /*write=*/false);
      if (!s.ok()) {
        SLUICE_LOG_ERROR(log_, 10091, "Can't load plugin '{}' from '{}': {}", name, lib, s.message());
        // Its line stays: the library may be back at the next start.
        not_loaded_.emplace_back(name, lib);
      }
    }
  }
  for (const auto& value : plugin_load) {
    auto items = ParsePluginLoad(value);
    if (!items.ok()) {
      SLUICE_LOG_ERROR(log_, 10000, "{}", items.status().message());
      continue;
    }
    for (const auto& [name, lib] : items.value()) {
      Status s = InstallLocked(name, lib, /*record=*/false, /*write=*/false);
      if (!s.ok()) {
        SLUICE_LOG_ERROR(log_, 10091, "Couldn't load plugin named '{}' with soname '{}': {}", name, lib,
                         s.message());
      }
    }
  }
}

void PluginRegistry::Shutdown() {
  MutexLock lock(&mu_);
  if (shut_down_) return;
  shut_down_ = true;
  while (!plugins_.empty()) {
    UnloadLocked(*plugins_.back());
    plugins_.pop_back();
  }
}

std::vector<PluginInfo> PluginRegistry::List() const {
  std::vector<PluginInfo> out = BuiltInPlugins();
  MutexLock lock(&mu_);
  for (const auto& p : plugins_) {
    PluginInfo i;
    auto str = [](const char* s) { return s != nullptr ? std::string(s) : std::string(); };
    i.name = p->name;
    i.type = "REPLICATION";
    i.type_version = AbiText(SLUICE_PLUGIN_ABI_VERSION);
    i.library = p->soname;
    i.library_version = AbiText(p->desc.abi_version);
    i.version = str(p->desc.version);
    i.author = str(p->desc.author);
    i.description = str(p->desc.description);
    i.license = p->desc.license != nullptr ? p->desc.license : "GPL";
    i.load_option = "ON";
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> PluginRegistry::Recorded() const {
  std::vector<std::pair<std::string, std::string>> out;
  MutexLock lock(&mu_);
  for (const auto& p : plugins_) {
    if (p->recorded) out.emplace_back(p->name, p->soname);
  }
  return out;
}

bool PluginRegistry::IsInstalled(std::string_view name) const {
  MutexLock lock(&mu_);
  return std::any_of(plugins_.begin(), plugins_.end(), [&](const auto& p) { return EqualsNoCase(p->name, name); });
}

}  // namespace sluice::server
