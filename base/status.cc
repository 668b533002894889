#include "base/status.h"

#include <fmt/format.h>

namespace sluice {

std::string Status::ToString() const {
  if (ok()) return "OK";
  return fmt::format("ERROR {} ({}): {}", errno_, sqlstate(), message_);
}

}  // namespace sluice
