#!/usr/bin/env python3
"""Checks that #include dependencies point down the stack (docs/architecture.md).

Each part of the tree may include only the parts listed for it below (and
itself, the standard library and third-party headers). Two more rules:
  - a header named *_internal.h belongs to its directory: nothing outside
    that directory includes it (tools/, bench/ and fuzz/ excepted: they
    test and measure the insides);
  - a plugin (plugins/) includes only the plugin ABI, include/sluice/.

Prints one line per violation and ends with "layering: N passed, N failed"
(one check per rule kind and source file), as scripts/test.sh tallies it.
Run from anywhere; it reads the files git tracks.
"""
import os
import re
import subprocess
import sys

# part -> the parts it may include. A part is a top-level directory, or
# server/rpl (the replication library inside server/).
ALLOWED = {
    "base": set(),
    "protocol": {"base"},
    "storage": {"base"},
    "sql": {"base"},
    "vars": {"base", "sql"},
    "acl": {"base", "protocol"},
    "binlog": {"base", "protocol", "storage"},
    "exec": {"base", "protocol", "storage", "sql", "vars", "acl", "binlog"},
    "server/rpl": {"base", "protocol", "storage", "binlog", "exec", "include"},
    "server": {"base", "protocol", "storage", "sql", "vars", "acl", "binlog", "exec", "server/rpl", "include"},
    "plugins": {"include"},
    "include": set(),
    # Tools, benchmarks and fuzz targets sit on top and may use anything.
    "tools": None,
    "bench": None,
    "fuzz": None,
}
# Directories that test, measure or fuzz the insides of others.
MAY_USE_INTERNALS = ("tools/", "bench/", "fuzz/")


def part_of(path):
    top = path.split("/", 1)[0]
    if path.startswith("server/rpl/"):
        return "server/rpl"
    if top == "sluice":  # "sluice/plugin.h", resolved under include/
        return "include"
    return top


def main():
    root = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    os.chdir(root)
    files = subprocess.check_output(["git", "ls-files", "*.cc", "*.h"], text=True).split()
    include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    failures = []
    checks = 0
    for f in files:
        part = part_of(f)
        if part not in ALLOWED:
            continue
        allowed = ALLOWED[part]
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        checks += 1
        for inc in include_re.findall(text):
            if "/" not in inc:
                continue  # a sibling header (generated protobuf, same directory)
            target = part_of(inc)
            if target not in ALLOWED:
                continue
            if allowed is not None and target != part and target not in allowed:
                failures.append(f"{f}: {part}/ may not include {inc} ({target}/)")
            if inc.endswith("_internal.h") and not f.startswith(MAY_USE_INTERNALS):
                if os.path.dirname(inc) != os.path.dirname(f):
                    failures.append(f"{f}: includes {inc}, private to {os.path.dirname(inc)}/")
    for line in failures:
        print(line)
    bad_files = len({line.split(":", 1)[0] for line in failures})
    print(f"layering: {checks - bad_files} passed, {bad_files} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
