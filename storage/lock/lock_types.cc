#include <cctype>

#include "storage/lock/lock_config.h"
#include "storage/lock/lock_types.h"

namespace sluice::storage {

const char* LockModeName(LockMode mode) {
  switch (mode) {
    case LockMode::kIS: return "IS";
    case LockMode::kIX: return "IX";
    case LockMode::kS: return "S";
    case LockMode::kX: return "X";
    case LockMode::kAutoInc: return "AUTO-INC";
  }
  return "?";
}

std::string_view SchedulePolicyName(SchedulePolicy policy) {
  return policy == SchedulePolicy::kFifo ? "FIFO" : "CATS";
}

bool ParseSchedulePolicy(std::string_view text, SchedulePolicy* policy) {
  auto equals = [&](std::string_view word) {
    if (text.size() != word.size()) return false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(text[i])) != word[i]) return false;
    }
    return true;
  };
  if (equals("CATS")) {
    *policy = SchedulePolicy::kCats;
    return true;
  }
  if (equals("FIFO")) {
    *policy = SchedulePolicy::kFifo;
    return true;
  }
  return false;
}

}  // namespace sluice::storage
