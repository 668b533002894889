// base/cpus.h
//
// UsableCpus: how many CPUs this process can keep busy at once, for the
// tuning that scales with them (worker and I/O thread counts, spin limits,
// the semisync backlog). std::thread::hardware_concurrency() counts every
// online CPU of the machine; a server confined to a few of them (taskset,
// a container's cpuset) or given a CPU quota (cgroup v2 cpu.max, as
// `docker run --cpus=2` sets) would tune itself for a machine it does not
// have. This takes the smallest of: the CPUs in the process's affinity
// mask (what nproc(1) prints), and each cpu.max quota from the process's
// cgroup up to the root, rounded up. At least 1; computed once.
#pragma once

#include <optional>
#include <string_view>

namespace sluice {

unsigned UsableCpus();

// The CPUs a cgroup v2 `cpu.max` file's content allows ("max 100000": no
// limit, nullopt; "150000 100000": 2, rounded up). nullopt for what does
// not parse.
std::optional<unsigned> CpusOfQuota(std::string_view cpu_max);

}  // namespace sluice
