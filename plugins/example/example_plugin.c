/* plugins/example/example_plugin.c
 *
 * The example plugin: what docs/plugins.md walks through and what the
 * loader's tests install. One library, two plugins:
 *   sluice_example      variables sluice_example_enabled (bool),
 *                       sluice_example_limit (int, 0..1000, 13 refused by
 *                       its check; old name sluice_example_old_limit, an
 *                       alias), sluice_example_refuse_uninstall (bool:
 *                       check_uninstall answers 1883 while ON); status
 *                       Sluice_example_after_commits (after_commit calls
 *                       since init), Sluice_example_enabled (mirrors the
 *                       variable through on_update), Sluice_example_limit;
 *                       observers: after_commit counts, and transmit_start
 *                       observes only dump connections that set
 *                       @sluice_example_observe (counted too).
 *   sluice_example_two  no variables; counts its init calls.
 *
 * The library may stay mapped between an UNINSTALL and the next INSTALL
 * (docs/plugins.md), so init resets every counter.
 */
#include <stdio.h>
#include <string.h>

#include "sluice/plugin.h"

static int32_t enabled_var;
static int64_t limit_var;
static int32_t refuse_uninstall_var;

static uint64_t after_commits;
static uint64_t transmit_starts;
static uint64_t observed_dumps;
static int32_t enabled_status;
static uint64_t two_inits;

static const sluice_plugin_services* services;

static int after_commit(void* user_data, const sluice_trans_param* param) {
  (void)user_data;
  (void)param;
  __atomic_fetch_add(&after_commits, 1, __ATOMIC_RELAXED);
  return 0;
}

static const sluice_trans_observer trans_observer = {
    sizeof(sluice_trans_observer), NULL, NULL, after_commit, NULL};

static int transmit_start(void* user_data, sluice_transmit_param* param, const char* log_file,
                          size_t log_file_len, uint64_t log_pos) {
  char buf[16];
  (void)user_data;
  (void)log_file;
  (void)log_file_len;
  (void)log_pos;
  __atomic_fetch_add(&transmit_starts, 1, __ATOMIC_RELAXED);
  if (param->user_var(param, "sluice_example_observe", buf, sizeof(buf)) > 0 && buf[0] != '0') {
    __atomic_fetch_add(&observed_dumps, 1, __ATOMIC_RELAXED);
    param->flags |= SLUICE_TRANSMIT_OBSERVE;
  } else {
    param->flags |= SLUICE_TRANSMIT_DONT_OBSERVE;
  }
  return 0;
}

static const sluice_binlog_transmit_observer transmit_observer = {
    sizeof(sluice_binlog_transmit_observer), NULL, transmit_start, NULL, NULL, NULL, NULL, NULL};

static int limit_check(void* plugin_data, const sluice_var_value* value, sluice_plugin_error* error) {
  (void)plugin_data;
  if (value->i == 13) {
    error->code = 1231;
    snprintf(error->sqlstate, sizeof(error->sqlstate), "42000");
    snprintf(error->message, sizeof(error->message),
             "Variable 'sluice_example_limit' can't be set to the value of '13'");
    return 1;
  }
  return 0;
}

static void enabled_update(void* plugin_data, const sluice_var_value* value) {
  (void)plugin_data;
  __atomic_store_n(&enabled_status, value->i != 0, __ATOMIC_RELAXED);
}

static void limit_status(void* plugin_data, sluice_status_value* value) {
  (void)plugin_data;
  value->i = SLUICE_PLUGIN_LOAD(&limit_var);
}

static const sluice_sysvar sysvars[] = {
    {"sluice_example_enabled", NULL, SLUICE_VAR_BOOL, 0, "Turns the example on (mirrored in a status variable).",
     0, 0, 1, 0, 0, 0, NULL, NULL, &enabled_var, 0, NULL, enabled_update, NULL},
    {"sluice_example_limit", "sluice_example_old_limit", SLUICE_VAR_INT, 0, "An integer in 0..1000; 13 is refused by the check.",
     10, 0, 1000, 0, 0, 0, NULL, NULL, &limit_var, 0, limit_check, NULL, NULL},
    {"sluice_example_refuse_uninstall", NULL, SLUICE_VAR_BOOL, 0,
     "While ON, UNINSTALL PLUGIN sluice_example fails with 1883.", 0, 0, 1, 0, 0, 0, NULL, NULL,
     &refuse_uninstall_var, 0, NULL, NULL, NULL},
    {NULL}};

static const sluice_statusvar statusvars[] = {
    {"Sluice_example_after_commits", NULL, SLUICE_STATUS_UINT, &after_commits, NULL},
    {"Sluice_example_transmit_starts", NULL, SLUICE_STATUS_UINT, &transmit_starts, NULL},
    {"Sluice_example_observed_dumps", NULL, SLUICE_STATUS_UINT, &observed_dumps, NULL},
    {"Sluice_example_enabled", NULL, SLUICE_STATUS_BOOL, &enabled_status, NULL},
    {"Sluice_example_limit", "Sluice_example_old_limit", SLUICE_STATUS_INT, NULL, limit_status},
    {NULL}};

static int example_init(const sluice_plugin_services* svc, void** plugin_data, sluice_plugin_error* error) {
  (void)error;
  services = svc;
  __atomic_store_n(&after_commits, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&transmit_starts, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&observed_dumps, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&enabled_status, SLUICE_PLUGIN_LOAD(&enabled_var), __ATOMIC_RELAXED);
  if (svc->register_trans_observer(svc->handle, &trans_observer) != 0) return 1;
  if (svc->register_binlog_transmit_observer(svc->handle, &transmit_observer) != 0) {
    svc->unregister_trans_observer(svc->handle, &trans_observer);
    return 1;
  }
  svc->log(svc->handle, SLUICE_LOG_INFO, "example plugin initialised");
  *plugin_data = NULL;
  return 0;
}

static void example_deinit(void* plugin_data) {
  (void)plugin_data;
  /* The server unregisters what is left; unregistering ourselves is fine too. */
  services->unregister_trans_observer(services->handle, &trans_observer);
  services->unregister_binlog_transmit_observer(services->handle, &transmit_observer);
  services = NULL;
}

static int example_check_uninstall(void* plugin_data, sluice_plugin_error* error) {
  (void)plugin_data;
  if (!SLUICE_PLUGIN_LOAD(&refuse_uninstall_var)) return 0;
  error->code = 1883;
  snprintf(error->sqlstate, sizeof(error->sqlstate), "HY000");
  snprintf(error->message, sizeof(error->message),
           "Plugin 'sluice_example' cannot be uninstalled now. Turn sluice_example_refuse_uninstall OFF first.");
  return 1;
}

static int two_init(const sluice_plugin_services* svc, void** plugin_data, sluice_plugin_error* error) {
  (void)svc;
  (void)plugin_data;
  (void)error;
  __atomic_fetch_add(&two_inits, 1, __ATOMIC_RELAXED);
  return 0;
}

static void two_deinit(void* plugin_data) { (void)plugin_data; }

SLUICE_PLUGIN_EXPORT const sluice_plugin_descriptor sluice_plugin_declarations[] = {
    {SLUICE_PLUGIN_ABI_VERSION, sizeof(sluice_plugin_descriptor), "sluice_example", "sluice",
     "Example plugin: variables, status, an after_commit counter", "GPL", "1.0", example_init, example_deinit,
     example_check_uninstall, sysvars, statusvars},
    {SLUICE_PLUGIN_ABI_VERSION, sizeof(sluice_plugin_descriptor), "sluice_example_two", "sluice",
     "Second plugin of the example library", "GPL", "1.0", two_init, two_deinit, NULL, NULL, NULL},
    {0}};
