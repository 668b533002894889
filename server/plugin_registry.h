// server/plugin_registry.h
//
// Runtime plugins: the loader behind INSTALL PLUGIN / UNINSTALL PLUGIN,
// --plugin-load / --plugin-load-add, SHOW PLUGINS and
// INFORMATION_SCHEMA.PLUGINS. A plugin is a shared object in plugin_dir that
// exports the descriptors of include/sluice/plugin.h (the only thing it
// sees of the server); this module adapts what it declares onto the
// server's parts:
//   - its system variables into vars::SystemVariables (gone again at
//     UNINSTALL, so @@x gives 1193 before INSTALL and after UNINSTALL);
//   - its status variables into vars::StatusVariables;
//   - its observers (C structs of function pointers) into rpl::Registry's
//     delegates, through one C++ adapter per struct.
//
// Installed plugins are recorded in <datadir>/mysql/plugin.tsv (one
// "name<TAB>library" line each, replaced atomically) and loaded again at
// start; --plugin-load-add loads without recording. Errors are MySQL's
// (1123 1124 1125 1126 1127 1305 1619 1883...).
//
// Unloading: UNINSTALL unregisters the plugin's observers, synchronizes
// the delegates (rpl/delegates.h: frees the retired snapshots once no hook
// walk can see them), marks each adapter retired and waits until no hook
// call is inside it (a hook call bumps the adapter's in-flight count, so
// only committing sessions and observed dump connections pay that, never a
// plain reader), then removes its variables and runs deinit. The library
// is dlclose()d when the last reference to it goes: the registry's, and one
// per adapter, held by observer snapshots and by dump connections that
// observe (TransmitSession) until their TransmitStop.
//
// Ownership: the server owns one PluginRegistry; it must be destroyed (or
// Shutdown()) before the variable registries and rpl::Registry it points to.
// Thread-safety: every method may be called from any thread; Install,
// Uninstall, LoadAtStart and Shutdown are serialised by mu_.
// Blocking: Install/Uninstall dlopen, run plugin code and write the datadir
// file: call them on a worker thread, never an io thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/io/file_system.h"
#include "base/mutex.h"
#include "base/status.h"
#include "exec/exec_env.h"
#include "exec/information_schema.h"

struct sluice_sysvar;  // sluice/plugin.h

namespace spdlog {
class logger;
}

namespace sluice::vars {
class SystemVariables;
class StatusVariables;
}  // namespace sluice::vars

namespace sluice::server::rpl {
class Registry;
}

namespace sluice::server {

using exec::PluginInfo;


class PluginRegistry final : public exec::PluginCatalog {
 public:
  struct Options {
    std::string plugin_dir;  // where INSTALL looks for libraries
    std::string datadir;     // empty: nothing is recorded or read
    vars::SystemVariables* sys_vars = nullptr;
    vars::StatusVariables* status_vars = nullptr;
    rpl::Registry* replication = nullptr;
    std::shared_ptr<spdlog::logger> log;  // null: base/log.h's "server"
    // Where <datadir>/mysql/plugin.tsv is read and written: the server's
    // FileSystem. Null: io::DefaultFileSystem(), POSIX. Must outlive this.
    io::FileSystem* fs = nullptr;
    // Start-up values ('_' name, text; the last one wins) for plugin
    // variables: the unknown loose- options. A SET PERSIST value wins.
    std::vector<std::pair<std::string, std::string>> startup_values;
  };
  explicit PluginRegistry(Options options);
  ~PluginRegistry();  // Shutdown()
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // INSTALL PLUGIN name SONAME 'soname': loads, initialises and records it.
  Status Install(std::string_view name, std::string_view soname) EXCLUDES(mu_);
  // UNINSTALL PLUGIN name. 1305 when not installed, 1619 for a built-in,
  // the plugin's own refusal from check_uninstall.
  Status Uninstall(std::string_view name) EXCLUDES(mu_);

  // At start: every recorded plugin, then `plugin_load` (the values of
  // --plugin-load / --plugin-load-add, each "name=lib.so;lib2.so"). A
  // plugin that fails is logged and skipped.
  void LoadAtStart(const std::vector<std::string>& plugin_load) EXCLUDES(mu_);

  // Deinitialises every plugin (reverse install order); idempotent.
  void Shutdown() EXCLUDES(mu_);

  // Built-in plugins followed by the installed ones (install order).
  std::vector<PluginInfo> List() const override;
  // Installed (not built-in) plugins, as mysql.plugin lists them.
  std::vector<std::pair<std::string, std::string>> Recorded() const override;
  bool IsInstalled(std::string_view name) const;

  // Parses one --plugin-load value: "name=lib.so;lib2.so;..." into
  // (name, library) pairs; name is empty for the library-only form (every
  // plugin of the library). InvalidArgument on an empty or malformed item.
  static Result<std::vector<std::pair<std::string, std::string>>> ParsePluginLoad(std::string_view value);

  struct Plugin;   // plugin_registry.cc
  struct Library;  // plugin_registry.cc

 private:
  // `name` empty: every plugin of the library.
  // `record`: INSTALL (kept in plugin.tsv); `write`: rewrite the file now.
  Status InstallLocked(std::string_view name, std::string_view soname, bool record, bool write)
      REQUIRES(mu_);
  Status LoadOneLocked(const std::string& name, const std::string& soname, const std::shared_ptr<Library>& lib,
                       const void* descriptor) REQUIRES(mu_);
  void UnloadLocked(Plugin& plugin) REQUIRES(mu_);
  // A loose- start-up option for the variable, unless a persisted value wins.
  void ApplyStartupValue(const ::sluice_sysvar& sv);
  Status WriteRecordLocked() REQUIRES(mu_);
  std::string RecordPath() const;
  io::FileSystem& file_system() const { return options_.fs != nullptr ? *options_.fs : io::DefaultFileSystem(); }

  const Options options_;
  std::shared_ptr<spdlog::logger> log_;
  mutable Mutex mu_;
  std::vector<std::unique_ptr<Plugin>> plugins_ GUARDED_BY(mu_);  // install order
  bool shut_down_ GUARDED_BY(mu_) = false;
  // Recorded plugins that failed to load at start: kept in the file (the
  // library may be back next time) until UNINSTALL.
  std::vector<std::pair<std::string, std::string>> not_loaded_ GUARDED_BY(mu_);
};

}  // namespace sluice::server
