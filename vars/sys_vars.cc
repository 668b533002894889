#include "vars/sys_vars.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <limits>
#include <variant>

#include "base/io/write_file_atomically.h"
#include "base/log.h"
#include "base/mysql_error.h"
#include "base/strings.h"
#include "sql/lexer.h"
#include "vars/json_internal.h"

namespace sluice::vars {
namespace internal {

// A value as stored: kBool (0/1), kEnum (index), kSet (bitmask) and kUInt
// as uint64; kInt as int64; kDouble as double; kString as string, or
// monostate for NULL.
using Raw = std::variant<std::monostate, int64_t, uint64_t, double, std::string>;

struct StoredValue {
  uint64_t generation = 0;  // of the VarDef that stored it; stale when it differs
  Raw raw;
};

struct VarDef {
  VariableSpec spec;        // name and aliases lower-case
  uint64_t generation = 0;  // unique per registration
  Raw default_raw;
  uint64_t valid_mask = 0;                               // kSet: bits with a name
  std::vector<std::pair<uint64_t, uint64_t>> implied;    // kSet: composite bit -> bits
};

// Versions unique in the process: a new session's values (COM_CHANGE_USER
// makes one) never share a version with the ones they replace.
inline uint64_t NextVersion() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

struct SessionState {
  const SystemVariables* registry = nullptr;
  // The globals when the connection started: session values not SET since.
  std::shared_ptr<const ValueMap> snapshot;
  ValueMap own;  // what this session SET
  uint64_t version = NextVersion();  // SessionVariables::version()
  std::map<std::string, std::function<sql::Value()>, std::less<>> computed;
};

}  // namespace internal

using internal::Raw;
using internal::SessionState;
using internal::StoredValue;
using internal::VarDef;

namespace {

constexpr std::string_view kPersistFileName = "mysqld-auto.cnf";

Status WrongValue(const VarDef& def, std::string_view text) {
  return MakeError(er::kWrongValueForVar, def.spec.name, text);
}

Status WrongType(const VarDef& def) { return MakeError(er::kWrongTypeForVar, def.spec.name); }

void Truncated(const VarDef& def, std::string_view text, std::vector<Status>* warnings) {
  if (warnings != nullptr) {
    warnings->push_back(MakeError(er::kTruncatedWrongValue, def.spec.name, text));
  }
}

std::optional<bool> ParseBoolText(std::string_view s) {
  if (sql::EqualsIgnoreCase(s, "ON") || sql::EqualsIgnoreCase(s, "TRUE") || s == "1") return true;
  if (sql::EqualsIgnoreCase(s, "OFF") || sql::EqualsIgnoreCase(s, "FALSE") || s == "0") return false;
  return std::nullopt;
}

Result<Raw> ClampInt(const VarDef& def, int64_t n, bool over_max, const std::string& text,
                     std::vector<Status>* warnings) {
  const VariableSpec& s = def.spec;
  int64_t r = over_max ? s.int_max : n;
  if (r > s.int_max) r = s.int_max;
  if (s.block_size > 1) r = r / static_cast<int64_t>(s.block_size) * static_cast<int64_t>(s.block_size);
  if (r < s.int_min) r = s.int_min;
  if (over_max || r != n) Truncated(def, text, warnings);
  return Raw(r);
}

Result<Raw> ClampUInt(const VarDef& def, uint64_t n, bool negative, const std::string& text,
                      std::vector<Status>* warnings) {
  const VariableSpec& s = def.spec;
  uint64_t r = negative ? s.uint_min : n;
  if (r > s.uint_max) r = s.uint_max;
  if (s.block_size > 1) r = r / s.block_size * s.block_size;
  if (r < s.uint_min) r = s.uint_min;
  if (negative || r != n) Truncated(def, text, warnings);
  return Raw(r);
}

uint64_t ExpandComposites(const VarDef& def, uint64_t mask) {
  for (const auto& [bit, implied] : def.implied) {
    if (mask & bit) mask |= implied;
  }
  return mask;
}

// Converts a value given to SET into the stored form, with MySQL's type
// rules: which value kinds a variable type accepts (1232), which values it
// accepts (1231), and clamping (1292).
Result<Raw> ParseValue(const VarDef& def, const sql::Value& v, std::vector<Status>* warnings) {
  const VariableSpec& s = def.spec;
  const sql::ValueKind k = v.kind();
  const bool is_int = k == sql::ValueKind::kInt || k == sql::ValueKind::kUInt;
  const bool negative = k == sql::ValueKind::kInt && v.int_value() < 0;
  switch (s.type) {
    case VarType::kBool: {
      if (v.is_null()) return WrongValue(def, "NULL");
      if (is_int) {
        uint64_t n = k == sql::ValueKind::kInt ? static_cast<uint64_t>(v.int_value()) : v.uint_value();
        if (negative || n > 1) return WrongValue(def, v.ToString());
        return Raw(n);
      }
      if (v.is_string()) {
        std::optional<bool> b = ParseBoolText(v.string_value());
        if (!b) return WrongValue(def, v.string_value());
        return Raw(static_cast<uint64_t>(*b));
      }
      return WrongType(def);
    }
    case VarType::kInt: {
      if (k == sql::ValueKind::kInt) return ClampInt(def, v.int_value(), false, v.ToString(), warnings);
      if (k == sql::ValueKind::kUInt) {
        uint64_t u = v.uint_value();
        bool over = u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        return ClampInt(def, over ? 0 : static_cast<int64_t>(u), over, v.ToString(), warnings);
      }
      return WrongType(def);
    }
    case VarType::kUInt: {
      if (k == sql::ValueKind::kInt) {
        return ClampUInt(def, static_cast<uint64_t>(v.int_value()), negative, v.ToString(), warnings);
      }
      if (k == sql::ValueKind::kUInt) return ClampUInt(def, v.uint_value(), false, v.ToString(), warnings);
      return WrongType(def);
    }
    case VarType::kDouble: {
      if (!v.is_numeric()) return WrongType(def);
      double d = v.ToDouble();
      double r = std::clamp(d, s.double_min, s.double_max);
      if (r != d) Truncated(def, v.ToString(), warnings);
      return Raw(r);
    }
    case VarType::kEnum: {
      if (v.is_null()) return WrongValue(def, "NULL");
      if (is_int) {
        uint64_t n = k == sql::ValueKind::kInt ? static_cast<uint64_t>(v.int_value()) : v.uint_value();
        if (negative || n >= s.names.size()) return WrongValue(def, v.ToString());
        return Raw(n);
      }
      if (v.is_string()) {
        for (size_t i = 0; i < s.names.size(); ++i) {
          if (sql::EqualsIgnoreCase(s.names[i], v.string_value())) return Raw(static_cast<uint64_t>(i));
        }
        return WrongValue(def, v.string_value());
      }
      return WrongType(def);
    }
    case VarType::kSet: {
      if (v.is_null()) return WrongValue(def, "NULL");
      if (is_int) {
        uint64_t n = k == sql::ValueKind::kInt ? static_cast<uint64_t>(v.int_value()) : v.uint_value();
        if (negative || (n & ~def.valid_mask) != 0) return WrongValue(def, v.ToString());
        return Raw(ExpandComposites(def, n));
      }
      if (v.is_string()) {
        std::string_view rest = v.string_value();
        uint64_t mask = 0;
        while (!rest.empty()) {
          size_t comma = rest.find(',');
          std::string_view item = rest.substr(0, comma);
          rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
          if (item.empty()) continue;  // "A,,B" and a trailing comma are tolerated
          bool found = false;
          for (size_t i = 0; i < s.names.size(); ++i) {
            if (!s.names[i].empty() && sql::EqualsIgnoreCase(s.names[i], item)) {
              mask |= uint64_t{1} << i;
              found = true;
              break;
            }
          }
          if (!found) return WrongValue(def, item);  // MySQL names the first bad flag
        }
        return Raw(ExpandComposites(def, mask));
      }
      return WrongType(def);
    }
    case VarType::kString: {
      if (v.is_null()) {
        if (s.nullable) return Raw(std::monostate());
        return WrongValue(def, "NULL");
      }
      if (v.is_string()) return Raw(v.string_value());
      return WrongType(def);
    }
  }
  return WrongType(def);
}

std::string SetText(const VarDef& def, uint64_t mask) {
  std::string out;
  for (size_t i = 0; i < def.spec.names.size(); ++i) {
    if ((mask & (uint64_t{1} << i)) == 0 || def.spec.names[i].empty()) continue;
    if (!out.empty()) out.push_back(',');
    out += def.spec.names[i];
  }
  return out;
}

// The stored form as Get() returns it.
sql::Value ToValue(const VarDef& def, const Raw& raw) {
  if (std::holds_alternative<std::monostate>(raw)) return sql::Value::Null();
  switch (def.spec.type) {
    case VarType::kBool:
      return sql::Value::Int(std::get<uint64_t>(raw) != 0 ? 1 : 0);
    case VarType::kInt:
      return sql::Value::Int(std::get<int64_t>(raw));
    case VarType::kUInt:
      return sql::Value::UInt(std::get<uint64_t>(raw));
    case VarType::kDouble:
      return sql::Value::Double(std::get<double>(raw));
    case VarType::kEnum: {
      uint64_t i = std::get<uint64_t>(raw);
      return sql::Value::String(i < def.spec.names.size() ? def.spec.names[i] : std::string());
    }
    case VarType::kSet:
      return sql::Value::String(SetText(def, std::get<uint64_t>(raw)));
    case VarType::kString:
      return sql::Value::String(std::get<std::string>(raw));
  }
  return sql::Value::Null();
}

// A value in Get() form as SHOW VARIABLES prints it.
std::optional<std::string> ShowText(const VarDef& def, const sql::Value& v) {
  if (v.is_null()) return std::nullopt;
  switch (def.spec.type) {
    case VarType::kBool:
      return v.ToInt() != 0 ? "ON" : "OFF";
    case VarType::kDouble:
      return fmt::format("{:.6f}", v.ToDouble());
    default:
      return v.ToString();
  }
}

// A stored value as written to mysqld-auto.cnf; read back by StartupValue().
std::optional<std::string> PersistText(const VarDef& def, const Raw& raw) {
  if (std::holds_alternative<std::monostate>(raw)) return std::nullopt;
  switch (def.spec.type) {
    case VarType::kBool:
      return std::get<uint64_t>(raw) != 0 ? "ON" : "OFF";
    case VarType::kDouble:
      return fmt::format("{}", std::get<double>(raw));  // shortest round-trip form
    default:
      return ToValue(def, raw).ToString();
  }
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Option text ("64M", "-1", "ON", "ROW") -> a value ParseValue() accepts.
Result<sql::Value> StartupValue(const VarDef& def, const std::optional<std::string>& text) {
  if (!text) return sql::Value::Null();
  const std::string& t = *text;
  switch (def.spec.type) {
    case VarType::kInt:
    case VarType::kUInt: {
      std::string_view digits = t;
      uint64_t multiplier = 1;
      if (!digits.empty()) {
        constexpr std::string_view kSuffixes = "kmgtpe";
        size_t at = kSuffixes.find(base::AsciiLower(digits.back()));
        if (at != std::string_view::npos) {
          multiplier = uint64_t{1} << (10 * (at + 1));
          digits.remove_suffix(1);
        }
      }
      bool negative = !digits.empty() && digits.front() == '-';
      if (negative) digits.remove_prefix(1);
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
          n > std::numeric_limits<uint64_t>::max() / multiplier) {
        return WrongValue(def, t);
      }
      n *= multiplier;
      if (!negative) return sql::Value::UInt(n);
      if (n > uint64_t{1} << 63) return WrongValue(def, t);
      return sql::Value::Int(static_cast<int64_t>(0 - n));
    }
    case VarType::kDouble: {
      if (t.empty()) return WrongValue(def, t);
      char* end = nullptr;
      errno = 0;
      double d = std::strtod(t.c_str(), &end);
      if (end != t.c_str() + t.size() || errno == ERANGE) return WrongValue(def, t);
      return sql::Value::Double(d);
    }
    case VarType::kEnum:
    case VarType::kSet:
      if (AllDigits(t)) {
        uint64_t n = 0;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (ec != std::errc()) return WrongValue(def, t);
        return sql::Value::UInt(n);
      }
      return sql::Value::String(t);
    case VarType::kBool:
    case VarType::kString:
      return sql::Value::String(t);
  }
  return sql::Value::String(t);
}

const Raw& GlobalRaw(const VarDef& def, const internal::ValueMap& globals) {
  auto it = globals.find(def.spec.name);
  if (it != globals.end() && it->second.generation == def.generation) return it->second.raw;
  return def.default_raw;
}

const Raw& SessionRaw(const VarDef& def, const SessionState* s,
                      const internal::ValueMap& globals) {
  if (s != nullptr) {
    auto it = s->own.find(def.spec.name);
    if (it != s->own.end() && it->second.generation == def.generation) return it->second.raw;
    it = s->snapshot->find(def.spec.name);
    if (it != s->snapshot->end() && it->second.generation == def.generation) {
      return it->second.raw;
    }
  }
  // Registered after the session started: the current global.
  return GlobalRaw(def, globals);
}

// Runs the check callbacks; a callback may rewrite the value, which is then
// parsed again into `raw`.
Status RunChecks(const VarDef& def, SetScope scope, const SessionVariables* session, Raw* raw) {
  if (def.spec.checks.empty()) return Status::OK();
  sql::Value v = ToValue(def, *raw);
  for (const CheckFn& check : def.spec.checks) {
    SLUICE_RETURN_IF_ERROR(check(scope, &v, session));
  }
  Result<Raw> again = ParseValue(def, v, nullptr);
  if (!again.ok()) return again.status();
  *raw = std::move(again).value();
  return Status::OK();
}

void RunUpdates(const VarDef& def, SetScope scope, const Raw& raw, SessionVariables* session) {
  if (def.spec.updates.empty()) return;
  sql::Value v = ToValue(def, raw);
  for (const UpdateFn& update : def.spec.updates) update(scope, v, session);
}

uint64_t NowMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

std::shared_ptr<spdlog::logger> LoggerOrDefault(const std::shared_ptr<spdlog::logger>& logger) {
  return logger ? logger : base::GetLogger("server");
}

}  // namespace

// ---- VariableSpec factories ----

namespace {

// The fields every factory sets; each factory adds its type's own.
VariableSpec BaseSpec(std::string name, VarType type, VarScope scope, sql::Value def,
                      std::string help) {
  VariableSpec s;
  s.name = std::move(name);
  s.type = type;
  s.scope = scope;
  s.help = std::move(help);
  s.default_value = std::move(def);
  return s;
}

}  // namespace

VariableSpec VariableSpec::Bool(std::string name, VarScope scope, bool def, std::string help) {
  return BaseSpec(std::move(name), VarType::kBool, scope, sql::Value::Bool(def), std::move(help));
}

VariableSpec VariableSpec::Int(std::string name, VarScope scope, int64_t def, int64_t min,
                               int64_t max, std::string help) {
  VariableSpec s = BaseSpec(std::move(name), VarType::kInt, scope, sql::Value::Int(def), std::move(help));
  s.int_min = min;
  s.int_max = max;
  return s;
}

VariableSpec VariableSpec::UInt(std::string name, VarScope scope, uint64_t def, uint64_t min,
                                uint64_t max, std::string help) {
  VariableSpec s = BaseSpec(std::move(name), VarType::kUInt, scope, sql::Value::UInt(def), std::move(help));
  s.uint_min = min;
  s.uint_max = max;
  return s;
}

VariableSpec VariableSpec::Double(std::string name, VarScope scope, double def, double min,
                                  double max, std::string help) {
  VariableSpec s = BaseSpec(std::move(name), VarType::kDouble, scope, sql::Value::Double(def),
                            std::move(help));
  s.double_min = min;
  s.double_max = max;
  return s;
}

VariableSpec VariableSpec::Enum(std::string name, VarScope scope, std::vector<std::string> values,
                                std::string def, std::string help) {
  VariableSpec s = BaseSpec(std::move(name), VarType::kEnum, scope, sql::Value::String(std::move(def)),
                            std::move(help));
  s.names = std::move(values);
  return s;
}

VariableSpec VariableSpec::Set(std::string name, VarScope scope, std::vector<std::string> flags,
                               std::string def, std::string help) {
  VariableSpec s = BaseSpec(std::move(name), VarType::kSet, scope, sql::Value::String(std::move(def)),
                            std::move(help));
  s.names = std::move(flags);
  return s;
}

VariableSpec VariableSpec::String(std::string name, VarScope scope, std::optional<std::string> def,
                                  std::string help) {
  return BaseSpec(std::move(name), VarType::kString, scope,
                  def ? sql::Value::String(std::move(*def)) : sql::Value::Null(), std::move(help));
}

// ---- SessionVariables ----

SessionVariables::SessionVariables(std::unique_ptr<SessionState> impl) : impl_(std::move(impl)) {}
SessionVariables::SessionVariables(SessionVariables&&) noexcept = default;
SessionVariables& SessionVariables::operator=(SessionVariables&&) noexcept = default;
SessionVariables::~SessionVariables() = default;

uint64_t SessionVariables::version() const { return impl_->version; }

void SessionVariables::BindComputed(std::string name, std::function<sql::Value()> fn) {
  impl_->computed[base::AsciiLower(name)] = std::move(fn);
}

std::optional<sql::Value> SessionVariables::OwnValue(std::string_view name) const {
  std::shared_ptr<const VarDef> def = impl_->registry->FindDef(name);
  if (!def) return std::nullopt;
  auto it = impl_->own.find(def->spec.name);
  if (it == impl_->own.end() || it->second.generation != def->generation) return std::nullopt;
  return ToValue(*def, it->second.raw);
}

// ---- SystemVariables ----

SystemVariables::SystemVariables() : SystemVariables(Options()) {}

SystemVariables::SystemVariables(Options options)
    : options_(std::move(options)), globals_(std::make_shared<const ValueMap>()) {}

SystemVariables::~SystemVariables() = default;

std::shared_ptr<const VarDef> SystemVariables::FindDef(std::string_view name) const {
  std::string lower = base::AsciiLower(name);
  ReaderMutexLock lock(&mu_);
  auto it = defs_.find(lower);
  return it == defs_.end() ? nullptr : it->second;
}

std::shared_ptr<const VarDef> SystemVariables::FindDefAndGlobals(
    std::string_view name, std::shared_ptr<const ValueMap>* globals) const {
  std::string lower = base::AsciiLower(name);
  ReaderMutexLock lock(&mu_);
  auto it = defs_.find(lower);
  if (it == defs_.end()) return nullptr;
  *globals = globals_;
  return it->second;
}

Status SystemVariables::Register(VariableSpec spec) {
  auto def = std::make_shared<VarDef>();
  spec.name = base::AsciiLower(spec.name);
  for (std::string& alias : spec.aliases) alias = base::AsciiLower(alias);
  const std::string name = spec.name;  // spec is moved from below
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("system variable '{}': {}", name, why));
  };
  if (name.empty()) return Status::InvalidArgument("system variable with an empty name");
  if (spec.session_read_only && spec.scope != VarScope::kBoth) {
    return invalid("SessionReadOnly() needs GLOBAL and SESSION scope");
  }
  if (spec.block_size == 0) return invalid("block size 0");
  switch (spec.type) {
    case VarType::kInt:
      if (spec.int_min > spec.int_max) return invalid("min > max");
      break;
    case VarType::kUInt:
      if (spec.uint_min > spec.uint_max) return invalid("min > max");
      break;
    case VarType::kDouble:
      if (!(spec.double_min <= spec.double_max)) return invalid("min > max");
      break;
    case VarType::kEnum:
      if (spec.names.empty()) return invalid("an enum needs values");
      for (const std::string& n : spec.names) {
        if (n.empty()) return invalid("empty enum value");
      }
      break;
    case VarType::kSet:
      if (spec.names.size() > 64) return invalid("more than 64 flags");
      for (size_t i = 0; i < spec.names.size(); ++i) {
        if (!spec.names[i].empty()) def->valid_mask |= uint64_t{1} << i;
      }
      break;
    default:
      break;
  }
  if (spec.type == VarType::kSet) {
    auto bit_of = [&](std::string_view flag) -> uint64_t {
      for (size_t i = 0; i < spec.names.size(); ++i) {
        if (!spec.names[i].empty() && sql::EqualsIgnoreCase(spec.names[i], flag)) return uint64_t{1} << i;
      }
      return 0;
    };
    for (const auto& [flag, implied] : spec.composites) {
      uint64_t bit = bit_of(flag);
      if (bit == 0) return invalid(fmt::format("composite '{}' is not a flag", flag));
      uint64_t mask = 0;
      for (const std::string& f : implied) {
        uint64_t b = bit_of(f);
        if (b == 0) return invalid(fmt::format("composite '{}' implies unknown '{}'", flag, f));
        mask |= b;
      }
      def->implied.emplace_back(bit, mask);
    }
  } else if (!spec.composites.empty()) {
    return invalid("composites are for SET variables");
  }
  def->spec = std::move(spec);
  std::vector<Status> warnings;
  Result<Raw> default_raw = ParseValue(*def, def->spec.default_value, &warnings);
  if (!default_raw.ok()) return invalid("bad default: " + default_raw.status().message());
  if (!warnings.empty()) return invalid("default out of range");
  def->default_raw = std::move(default_raw).value();

  {
    WriterMutexLock lock(&mu_);
    if (defs_.count(def->spec.name) != 0) return invalid("already registered");
    for (const std::string& alias : def->spec.aliases) {
      if (defs_.count(alias) != 0 || alias == def->spec.name) {
        return invalid(fmt::format("alias '{}' already registered", alias));
      }
    }
    def->generation = next_generation_++;
    std::shared_ptr<const VarDef> frozen = def;
    defs_[def->spec.name] = frozen;
    for (const std::string& alias : def->spec.aliases) defs_[alias] = frozen;
    auto globals = std::make_shared<ValueMap>(*globals_);
    (*globals)[def->spec.name] = StoredValue{def->generation, def->default_raw};
    globals_ = std::move(globals);
    globals_version_.fetch_add(1, std::memory_order_acq_rel);
  }
  ApplyPendingPersisted(*def);
  return Status::OK();
}

Status SystemVariables::Unregister(std::string_view name) {
  MutexLock set_lock(&set_mu_);
  WriterMutexLock lock(&mu_);
  auto it = defs_.find(base::AsciiLower(name));
  if (it == defs_.end()) return MakeError(er::kUnknownSystemVariable, name);
  std::shared_ptr<const VarDef> def = it->second;
  defs_.erase(def->spec.name);
  for (const std::string& alias : def->spec.aliases) defs_.erase(alias);
  auto globals = std::make_shared<ValueMap>(*globals_);
  globals->erase(def->spec.name);
  globals_ = std::move(globals);
  globals_version_.fetch_add(1, std::memory_order_acq_rel);
  return Status::OK();
}

Status SystemVariables::AddHooks(std::string_view name, CheckFn check, UpdateFn on_update) {
  MutexLock set_lock(&set_mu_);
  WriterMutexLock lock(&mu_);
  auto it = defs_.find(base::AsciiLower(name));
  if (it == defs_.end()) return MakeError(er::kUnknownSystemVariable, name);
  // Definitions are immutable (a SET may be using the old one): copy.
  auto def = std::make_shared<VarDef>(*it->second);
  if (check) def->spec.checks.push_back(std::move(check));
  if (on_update) def->spec.updates.push_back(std::move(on_update));
  std::shared_ptr<const VarDef> frozen = def;
  defs_[def->spec.name] = frozen;
  for (const std::string& alias : def->spec.aliases) defs_[alias] = frozen;
  return Status::OK();
}

bool SystemVariables::Exists(std::string_view name) const { return FindDef(name) != nullptr; }

std::optional<VariableInfo> SystemVariables::Describe(std::string_view name) const {
  std::shared_ptr<const VarDef> def = FindDef(name);
  if (!def) return std::nullopt;
  const VariableSpec& s = def->spec;
  return VariableInfo{s.name,     s.type,     s.scope, s.read_only, s.session_read_only,
                      s.nullable, s.help,     s.names};
}

SessionVariables SystemVariables::NewSession() const {
  auto impl = std::make_unique<SessionState>();
  impl->registry = this;
  {
    ReaderMutexLock lock(&mu_);
    impl->snapshot = globals_;
  }
  return SessionVariables(std::move(impl));
}

namespace {

// Reads one variable, the session value when `want_session`.
sql::Value ReadValue(const VarDef& def, bool want_session, const SessionVariables* session,
                     const SessionState* impl, const internal::ValueMap& globals) {
  if (want_session && impl != nullptr) {
    auto it = impl->computed.find(def.spec.name);
    if (it != impl->computed.end()) return it->second();
  }
  if (def.spec.getter) return def.spec.getter(want_session ? session : nullptr);
  return ToValue(def, want_session ? SessionRaw(def, impl, globals) : GlobalRaw(def, globals));
}

// Resolves @@x / @@session.x / @@global.x to "read the session value?".
Status ResolveGetScope(const VarDef& def, GetScope scope, bool* want_session) {
  switch (scope) {
    case GetScope::kSession:
      if (def.spec.scope == VarScope::kGlobal) {
        return MakeError(er::kIncorrectGlobalLocalVar, def.spec.name, "GLOBAL");
      }
      *want_session = true;
      return Status::OK();
    case GetScope::kGlobal:
      if (def.spec.scope == VarScope::kSession) {
        return MakeError(er::kIncorrectGlobalLocalVar, def.spec.name, "SESSION");
      }
      *want_session = false;
      return Status::OK();
    case GetScope::kDefault:
      *want_session = def.spec.scope != VarScope::kGlobal;
      return Status::OK();
  }
  return Status::OK();
}

}  // namespace

Result<sql::Value> SystemVariables::Get(std::string_view name, GetScope scope,
                                        const SessionVariables* session) const {
  std::shared_ptr<const ValueMap> globals;
  std::shared_ptr<const VarDef> def = FindDefAndGlobals(name, &globals);
  if (!def) return MakeError(er::kUnknownSystemVariable, name);
  bool want_session = false;
  SLUICE_RETURN_IF_ERROR(ResolveGetScope(*def, scope, &want_session));
  return ReadValue(*def, want_session, session, session ? session->impl_.get() : nullptr, *globals);
}

Result<uint64_t> SystemVariables::GetFlags(std::string_view name, GetScope scope,
                                           const SessionVariables* session) const {
  std::shared_ptr<const ValueMap> globals;
  std::shared_ptr<const VarDef> def = FindDefAndGlobals(name, &globals);
  if (!def) return MakeError(er::kUnknownSystemVariable, name);
  bool want_session = false;
  SLUICE_RETURN_IF_ERROR(ResolveGetScope(*def, scope, &want_session));
  if (def->spec.getter) {
    return Status::InvalidArgument(fmt::format("'{}' is computed", def->spec.name));
  }
  const SessionState* impl = session ? session->impl_.get() : nullptr;
  const Raw& raw = want_session ? SessionRaw(*def, impl, *globals) : GlobalRaw(*def, *globals);
  if (const uint64_t* u = std::get_if<uint64_t>(&raw)) return *u;
  if (const int64_t* i = std::get_if<int64_t>(&raw); i != nullptr && *i >= 0) {
    return static_cast<uint64_t>(*i);
  }
  return Status::InvalidArgument(fmt::format("'{}' has no flags", def->spec.name));
}

std::vector<VariableRow> SystemVariables::List(GetScope scope,
                                               const SessionVariables* session) const {
  std::vector<std::pair<std::string, std::shared_ptr<const VarDef>>> defs;
  std::shared_ptr<const ValueMap> globals;
  {
    ReaderMutexLock lock(&mu_);
    defs.assign(defs_.begin(), defs_.end());
    globals = globals_;
  }
  const SessionState* impl = session ? session->impl_.get() : nullptr;
  std::vector<VariableRow> rows;
  rows.reserve(defs.size());
  // Getters run here, outside mu_.
  for (const auto& [name, def] : defs) {
    bool want_session;
    if (scope == GetScope::kGlobal) {
      if (def->spec.scope == VarScope::kSession) continue;
      want_session = false;
    } else {
      want_session = def->spec.scope != VarScope::kGlobal;
    }
    rows.push_back(
        VariableRow{name, ShowText(*def, ReadValue(*def, want_session, session, impl, *globals))});
  }
  return rows;
}

Status SystemVariables::Set(std::string_view name, SetScope scope, const sql::Value& value,
                            SessionVariables* session, std::vector<Status>* warnings,
                            const PersistedBy& by) {
  return SetImpl(name, scope, &value, session, warnings, by);
}

Status SystemVariables::SetDefault(std::string_view name, SetScope scope,
                                   SessionVariables* session, std::vector<Status>* warnings,
                                   const PersistedBy& by) {
  return SetImpl(name, scope, nullptr, session, warnings, by);
}

Status SystemVariables::SetImpl(std::string_view name, SetScope scope, const sql::Value* value,
                                SessionVariables* session, std::vector<Status>* warnings,
                                const PersistedBy& by) {
  if (scope == SetScope::kDefault) scope = SetScope::kSession;
  const bool global = scope != SetScope::kSession;
  // Global SETs are serialised from the checks through the update callbacks.
  // Held only when `global`, which the analysis cannot follow: the global
  // paths below assert it.
  std::optional<MutexLock> set_lock;
  if (global) set_lock.emplace(&set_mu_);

  std::shared_ptr<const ValueMap> globals;
  std::shared_ptr<const VarDef> def = FindDefAndGlobals(name, &globals);
  if (!def) return MakeError(er::kUnknownSystemVariable, name);
  const VariableSpec& s = def->spec;

  // MySQL's order: read-only, then scope, then the value.
  if (s.read_only) {
    if (scope != SetScope::kPersistOnly) {
      return MakeError(er::kIncorrectGlobalLocalVar, s.name, "read only");
    }
    if (!s.persistable) {
      return MakeError(er::kIncorrectGlobalLocalVar, s.name, "non persistent read only");
    }
  }
  if (!global && s.scope == VarScope::kGlobal) return MakeError(er::kGlobalVariable, s.name);
  if (global && s.scope == VarScope::kSession) return MakeError(er::kLocalVariable, s.name);
  if (!global && s.session_read_only) {
    return MakeError(er::kVariableIsReadonly, "SESSION", s.name, "GLOBAL");
  }
  if (!global && session == nullptr) {
    return Status::InvalidArgument(fmt::format("SET SESSION {} without a session", s.name));
  }

  Raw raw;
  if (value != nullptr) {
    Result<Raw> parsed = ParseValue(*def, *value, warnings);
    if (!parsed.ok()) return parsed.status();
    raw = std::move(parsed).value();
  } else if (!global && s.scope == VarScope::kBoth) {
    raw = GlobalRaw(*def, *globals);
  } else {
    raw = def->default_raw;
  }
  SLUICE_RETURN_IF_ERROR(RunChecks(*def, scope, global ? nullptr : session, &raw));

  if (!global) {
    session->impl_->version = internal::NextVersion();
    if (value == nullptr && s.scope == VarScope::kSession) {
      session->impl_->own.erase(s.name);  // back to the default
    } else {
      session->impl_->own[s.name] = StoredValue{def->generation, raw};
    }
    RunUpdates(*def, scope, raw, session);
    return Status::OK();
  }
  set_mu_.AssertHeld();  // set_lock: not a session SET
  if (scope == SetScope::kPersist || scope == SetScope::kPersistOnly) {
    // The file first: if it cannot be written, nothing changed.
    SLUICE_RETURN_IF_ERROR(Persist(*def, PersistText(*def, raw), by));
  }
  if (scope != SetScope::kPersistOnly) {
    StoreGlobal(*def, StoredValue{def->generation, raw});
    RunUpdates(*def, scope, raw, nullptr);
  }
  return Status::OK();
}

void SystemVariables::StoreGlobal(const VarDef& def, const StoredValue& stored) {
  WriterMutexLock lock(&mu_);
  // Copy-on-write: sessions keep the map of their connect time.
  auto globals = std::make_shared<ValueMap>(*globals_);
  (*globals)[def.spec.name] = stored;
  globals_ = std::move(globals);
  globals_version_.fetch_add(1, std::memory_order_acq_rel);
}

Status SystemVariables::SetStartupValue(std::string_view name, std::string_view text,
                                        std::vector<Status>* warnings) {
  std::shared_ptr<const VarDef> def = FindDef(name);
  if (!def) return MakeError(er::kUnknownSystemVariable, name);
  return ApplyStartupText(*def, std::string(text), warnings);
}

Status SystemVariables::ApplyStartupText(const VarDef& def, const std::optional<std::string>& text,
                                         std::vector<Status>* warnings) {
  Result<sql::Value> value = StartupValue(def, text);
  if (!value.ok()) return value.status();
  MutexLock set_lock(&set_mu_);
  // The definition may have changed (AddHooks) or gone since the caller
  // looked: use the current one.
  std::shared_ptr<const VarDef> current = FindDef(def.spec.name);
  if (!current || current->generation != def.generation) {
    return MakeError(er::kUnknownSystemVariable, def.spec.name);
  }
  Result<Raw> raw = ParseValue(*current, *value, warnings);
  if (!raw.ok()) return raw.status();
  SLUICE_RETURN_IF_ERROR(RunChecks(*current, SetScope::kGlobal, nullptr, &raw.value()));
  StoreGlobal(*current, StoredValue{current->generation, raw.value()});
  RunUpdates(*current, SetScope::kGlobal, raw.value(), nullptr);
  return Status::OK();
}

// ---- Persistence ----

std::string SystemVariables::persisted_file() const {
  MutexLock lock(&persist_mu_);
  return datadir_.empty() ? std::string() : datadir_ + "/" + std::string(kPersistFileName);
}

Status SystemVariables::Persist(const VarDef& def, std::optional<std::string> text,
                                const PersistedBy& by) {
  MutexLock lock(&persist_mu_);
  if (datadir_.empty()) {
    return MakeError(er::kUnknown, "SET PERSIST needs the data directory (no LoadPersisted())");
  }
  auto saved = persisted_;
  // One entry per variable, under its canonical name.
  for (const std::string& alias : def.spec.aliases) persisted_.erase(alias);
  persisted_[def.spec.name] = PersistEntry{std::move(text), NowMicros(), std::string(by.user),
                                           std::string(by.host), def.spec.read_only};
  Status st = WriteFileLocked();
  if (!st.ok()) persisted_ = std::move(saved);
  return st;
}

Status SystemVariables::WriteFileLocked() {
  // MySQL 8.0's layout (Version 1): dynamic variables under "mysql_server",
  // read-only ones under "mysql_server_static_options" inside it.
  auto append_section = [this](std::string* out, bool is_static) REQUIRES(persist_mu_) {
    bool first = true;
    for (const auto& [name, e] : persisted_) {
      if (e.is_static != is_static) continue;
      out->append(first ? " " : " , ");
      first = false;
      internal::AppendJsonString(out, name);
      out->append(" : { \"Value\" : ");
      if (e.value) {
        internal::AppendJsonString(out, *e.value);
      } else {
        out->append("null");
      }
      out->append(fmt::format(" , \"Metadata\" : {{ \"Timestamp\" : {} , \"User\" : ", e.timestamp_us));
      internal::AppendJsonString(out, e.user);
      out->append(" , \"Host\" : ");
      internal::AppendJsonString(out, e.host);
      out->append(" } }");
    }
    return !first;
  };
  std::string out = "{ \"Version\" : 1 , \"mysql_server\" : {";
  bool any_dynamic = append_section(&out, false);
  std::string statics;
  if (append_section(&statics, true)) {
    out.append(any_dynamic ? " , " : " ");
    out.append("\"mysql_server_static_options\" : {");
    out.append(statics);
    out.append(" }");
  }
  out.append(" } }\n");
  // A failed write leaves the old file whole (the caller restores
  // persisted_ to match it).
  return io::WriteFileAtomically(file_system(), datadir_ + "/" + std::string(kPersistFileName), out);
}

namespace {

struct LoadedEntry {
  std::string name;
  std::optional<std::string> value;
  uint64_t timestamp_us = 0;
  std::string user;
  std::string host;
  bool is_static = false;
};

// Collects "name": {"Value": ..., "Metadata": {...}} members of a section,
// walking down into groups: Version 1 keeps dynamic variables in
// "mysql_server" and read-only ones in "mysql_server_static_options" inside
// it; Version 2 has "mysql_dynamic_variables", "mysql_static_variables",
// ... at the top. Encrypted "mysql_sensitive_variables" are not read.
void CollectEntries(const internal::Json& section, bool is_static, int depth,
                    std::vector<LoadedEntry>* out, std::vector<std::string>* skipped) {
  using Kind = internal::Json::Kind;
  for (const auto& [key, val] : section.members) {
    if (val.kind != Kind::kObject) {
      if (!(depth == 0 && key == "Version")) skipped->push_back(key);
      continue;
    }
    const internal::Json* value = val.Find("Value");
    if (value == nullptr) {
      if (depth >= 2 || key == "mysql_sensitive_variables") {
        skipped->push_back(key);
        continue;
      }
      bool nested_static = is_static || key == "mysql_server_static_options" ||
                           key == "mysql_static_variables";
      CollectEntries(val, nested_static, depth + 1, out, skipped);
      continue;
    }
    LoadedEntry e;
    e.name = base::AsciiLower(key);
    e.is_static = is_static;
    if (value->kind == Kind::kString || value->kind == Kind::kNumber) {
      e.value = value->text;
    } else if (value->kind == Kind::kBool) {
      e.value = value->boolean ? "ON" : "OFF";
    } else if (value->kind != Kind::kNull) {
      skipped->push_back(key);
      continue;
    }
    if (const internal::Json* meta = val.Find("Metadata")) {
      if (const internal::Json* ts = meta->Find("Timestamp"); ts && ts->kind == Kind::kNumber) {
        std::from_chars(ts->text.data(), ts->text.data() + ts->text.size(), e.timestamp_us);
      }
      if (const internal::Json* u = meta->Find("User"); u && u->kind == Kind::kString) e.user = u->text;
      if (const internal::Json* h = meta->Find("Host"); h && h->kind == Kind::kString) e.host = h->text;
    }
    out->push_back(std::move(e));
  }
}

}  // namespace

Status SystemVariables::LoadPersisted(const std::string& datadir) {
  std::vector<LoadedEntry> entries;
  std::vector<std::string> skipped;
  {
    MutexLock lock(&persist_mu_);
    datadir_ = datadir;
    while (datadir_.size() > 1 && datadir_.back() == '/') datadir_.pop_back();
    persisted_.clear();
    const std::string path = datadir_ + "/" + std::string(kPersistFileName);
    Result<std::optional<std::string>> read = io::ReadFileIfExists(file_system(), path);
    if (!read.ok()) return read.status();
    const std::optional<std::string>& data = *read;
    if (!data) return Status::OK();
    Result<internal::Json> root = internal::ParseJson(*data);
    if (!root.ok()) return Status::Corruption(path + ": " + root.status().message());
    if (root->kind != internal::Json::Kind::kObject) {
      return Status::Corruption(path + ": not a JSON object");
    }
    CollectEntries(*root, false, 0, &entries, &skipped);
    for (const LoadedEntry& e : entries) {
      persisted_[e.name] = PersistEntry{e.value, e.timestamp_us, e.user, e.host, e.is_static};
    }
  }
  auto logger = LoggerOrDefault(options_.logger);
  for (const std::string& key : skipped) {
    SLUICE_LOG_WARNING(logger, 0, "{}: ignoring '{}' (not a persisted variable)", kPersistFileName,
                       key);
  }
  for (const LoadedEntry& e : entries) {
    std::shared_ptr<const VarDef> def = FindDef(e.name);
    if (!def) continue;  // applied when it is registered (a plugin's)
    std::vector<Status> warnings;
    Status st = ApplyStartupText(*def, e.value, &warnings);
    if (!st.ok()) {
      SLUICE_LOG_WARNING(logger, 0, "{}: cannot apply {}: {}", kPersistFileName, e.name,
                         st.message());
    }
    for (const Status& w : warnings) {
      SLUICE_LOG_WARNING(logger, 0, "{}: {}", kPersistFileName, w.message());
    }
  }
  return Status::OK();
}

bool SystemVariables::IsPersisted(std::string_view name) const {
  MutexLock lock(&persist_mu_);
  return persisted_.find(base::AsciiLower(name)) != persisted_.end();
}

void SystemVariables::ApplyPendingPersisted(const VarDef& def) {
  std::optional<PersistEntry> entry;
  std::string found_as;
  {
    MutexLock lock(&persist_mu_);
    auto it = persisted_.find(def.spec.name);
    for (size_t i = 0; it == persisted_.end() && i < def.spec.aliases.size(); ++i) {
      it = persisted_.find(def.spec.aliases[i]);
    }
    if (it == persisted_.end()) return;
    entry = it->second;
    found_as = it->first;
  }
  std::vector<Status> warnings;
  Status st = ApplyStartupText(def, entry->value, &warnings);
  auto logger = LoggerOrDefault(options_.logger);
  if (!st.ok()) {
    SLUICE_LOG_WARNING(logger, 0, "{}: cannot apply {}: {}", kPersistFileName, found_as,
                       st.message());
  }
  for (const Status& w : warnings) {
    SLUICE_LOG_WARNING(logger, 0, "{}: {}", kPersistFileName, w.message());
  }
}

Status SystemVariables::ResetPersist(std::optional<std::string_view> name, bool if_exists,
                                     std::vector<Status>* warnings) {
  MutexLock lock(&persist_mu_);
  auto saved = persisted_;
  if (name) {
    auto it = persisted_.find(base::AsciiLower(*name));
    if (it == persisted_.end()) {
      Status missing = MakeError(er::kVarDoesNotExist, *name);
      if (!if_exists) return missing;
      if (warnings != nullptr) warnings->push_back(std::move(missing));
      return Status::OK();
    }
    persisted_.erase(it);
  } else {
    persisted_.clear();
  }
  if (datadir_.empty()) return Status::OK();
  Status st = WriteFileLocked();
  if (!st.ok()) persisted_ = std::move(saved);
  return st;
}

}  // namespace sluice::vars
