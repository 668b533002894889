#!/usr/bin/env python3
"""Folds `perf script` output of a context-switches profile (perf record -e
context-switches -c 1 --call-graph dwarf) into where threads went to sleep:
the first DEPTH C++ frames of each switch outside the standard library
(so the kernel's, glibc's, std::'s and the lock wrappers' frames are left
out, inlined or not), most frequent first.
    perf script -i FILE | python3 switches.py [DEPTH] [TOP]"""
import collections
import re
import sys

DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 3
TOP = int(sys.argv[2]) if len(sys.argv) > 2 else 30
# Frames that only say "waiting": the caller above them says what for.
# How the thread slept, from the first frame that names it.
KINDS = (("cond", "cond"), ("rwlock", "rwlock"), ("mutex_lock", "mutex"), ("lll_lock", "mutex"),
         ("epoll", "epoll"), ("poll", "poll"), ("send", "send"), ("recv", "recv"), ("write", "write"),
         ("sync", "fsync"), ("sched_yield", "yield"), ("nanosleep", "sleep"))
WAITING = ("std::", "__gnu_cxx::", "sluice::Mutex::", "sluice::MutexLock::", "sluice::CondVar::")

counts = collections.Counter()
total = 0
frames = None
kind = None


def flush():
    global total
    if frames is None:
        return
    total += 1
    counts[f"[{kind or '?'}] " + " <- ".join(frames[:DEPTH])] += 1


for line in sys.stdin:
    if not line.strip():
        flush()
        frames = None
        continue
    if not line.startswith((" ", "\t")):
        flush()
        frames = []
        kind = None
        continue
    if frames is None:
        continue
    parts = line.strip().split(None, 1)
    if len(parts) < 2 or "kernel.kallsyms" in parts[1]:
        continue
    sym = re.sub(r"\+0x[0-9a-f]+", "", parts[1])
    sym = re.sub(r" \(.*\)$", "", sym).strip()
    if kind is None and not frames:
        kind = next((k for word, k in KINDS if word in sym), None)
    if "::" not in sym or sym.startswith(WAITING) or (frames and frames[-1] == sym.replace("sluice::", "")[:100]):
        continue
    frames.append(sym.replace("sluice::", "")[:100])
flush()
for key, n in counts.most_common(TOP):
    print(f"{100 * n / max(total, 1):5.1f}%  {key}")
print(f"switches: {total}")
