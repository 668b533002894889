// plugins/semisync/semisync_replica.cc
//
// The semisync replica plugin: semisync_replica.so (rpl_semi_sync_replica)
// and, built with SEMISYNC_OLD_NAMES, semisync_slave.so
// (rpl_semi_sync_slave). sluiced has no replication threads of its own, so
// the plugin only installs and shows MySQL's variables and status (the
// other name set as aliases): Rpl_semi_sync_replica_status stays OFF.
// Tools that configure a server as a semisync replica can install it and
// read what they expect.
#include "sluice/plugin.h"

namespace {

#ifdef SEMISYNC_OLD_NAMES
#define SEMISYNC_NAMES(new_name, old_name) old_name, new_name
constexpr const char* kPluginName = "rpl_semi_sync_slave";
#else
#define SEMISYNC_NAMES(new_name, old_name) new_name, old_name
constexpr const char* kPluginName = "rpl_semi_sync_replica";
#endif

int32_t enabled_var = 0;
uint64_t trace_level_var = 32;
int32_t status_off = 0;  // no IO thread: never ON

const sluice_sysvar kSysvars[] = {
    {SEMISYNC_NAMES("rpl_semi_sync_replica_enabled", "rpl_semi_sync_slave_enabled"), SLUICE_VAR_BOOL, 0,
     "Enable semi-synchronous replication on the replica (sluiced has no replication threads: no effect).", 0, 0, 1,
     0, 0, 0, nullptr, nullptr, &enabled_var, 0, nullptr, nullptr, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_replica_trace_level", "rpl_semi_sync_slave_trace_level"), SLUICE_VAR_UINT, 0,
     "The tracing level for semi-synchronous replication on the replica.", 0, 0, 0, 32, 0, 4294967295ull, nullptr,
     nullptr, &trace_level_var, 0, nullptr, nullptr, nullptr},
    {}};

const sluice_statusvar kStatusvars[] = {
    {SEMISYNC_NAMES("Rpl_semi_sync_replica_status", "Rpl_semi_sync_slave_status"), SLUICE_STATUS_BOOL, &status_off,
     nullptr},
    {}};

int Init(const sluice_plugin_services*, void** plugin_data, sluice_plugin_error*) {
  *plugin_data = nullptr;
  return 0;
}

void Deinit(void*) {}

}  // namespace

extern "C" SLUICE_PLUGIN_EXPORT const sluice_plugin_descriptor sluice_plugin_declarations[] = {
    {SLUICE_PLUGIN_ABI_VERSION, sizeof(sluice_plugin_descriptor), kPluginName, "sluice",
     "Semi-synchronous replication replica (variables only: sluiced runs no replication threads)", "GPL", "1.0",
     Init, Deinit, nullptr, kSysvars, kStatusvars},
    {}};
