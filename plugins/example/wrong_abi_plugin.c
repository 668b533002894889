/* plugins/example/wrong_abi_plugin.c
 *
 * A plugin that claims another ABI major: the loader must refuse it (1126)
 * without calling anything in it.
 */
#include "sluice/plugin.h"

static int wrong_init(const sluice_plugin_services* svc, void** plugin_data, sluice_plugin_error* error) {
  (void)svc;
  (void)plugin_data;
  (void)error;
  return 0;
}

SLUICE_PLUGIN_EXPORT const sluice_plugin_descriptor sluice_plugin_declarations[] = {
    {((SLUICE_PLUGIN_ABI_MAJOR + 1) << 16) | 0, sizeof(sluice_plugin_descriptor), "sluice_wrong_abi", "sluice",
     "Built for another plugin ABI major", "GPL", "1.0", wrong_init, NULL, NULL, NULL, NULL},
    {0}};
