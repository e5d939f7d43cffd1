#!/usr/bin/env python3
"""house.includes_catches: the include check fails where it should, shown on copies of real
files. A temporary tree gets the real docs/layers.toml and real sources; the copy must pass
as it is, then each case adds one forbidden include at a known line and the check must exit 1
naming that file, that line and the rule, and nothing else. A check that passed every tree
would pass house.includes too; this is what says it can fail."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "tests", "house", "check_includes.py")

# The real files the fixture copies: one of each kind of folder the cases touch.
COPIED = [
    "docs/layers.toml",
    "base/text.hpp",
    "topology/place.hpp",
    "probes/probe.hpp",
    "probes/soak/soak_probe.cpp",
    "probes/gpu/gpu_probe.cpp",
    "probes/devices/gpu_identity.cpp",
    "app/run_support.cpp",
    "suites/judge.cpp",
    "reports/bad_hosts.cpp",
    "tests/unit/probes_soak_test.cpp",
]

# (file, forbidden include, a word the rule's message must hold)
CASES = [
    ("probes/soak/soak_probe.cpp", '#include "probes/gpu/xid_catalogue.hpp"', "another probe's folder"),
    ("probes/soak/soak_probe.cpp", '#include "../nccl/nccl_backend.hpp"', "another probe's folder"),
    ("app/run_support.cpp", '#include "probes/gpu/xid_catalogue.hpp"', "app may not include probes/gpu"),
    ("base/text.hpp", '#include "topology/place.hpp"', "base may not include topology"),
    ("topology/place.hpp", '#include "probes/sample.hpp"', "topology may not include probes/"),
    ("probes/devices/gpu_identity.cpp", '#include "probes/gpu/gpu_measure.hpp"', "probes/devices may not include probes/gpu"),
    ("suites/judge.cpp", '#include "probes/harness/isolation.hpp"', "suites may not include probes/harness"),
    ("reports/bad_hosts.cpp", '#include "app/commands.hpp"', "reports may not include app"),
    ("probes/probe.hpp", '#include "probes/harness/sweep.hpp"', "probes/ (the contract"),
]


def run(tree):
    p = subprocess.run([sys.executable, CHECK, "--root", tree], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="house-includes-") as tmp:
        clean = os.path.join(tmp, "clean")
        for rel in COPIED:
            os.makedirs(os.path.join(clean, os.path.dirname(rel)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, rel), os.path.join(clean, rel))
        rc, out = run(clean)
        if rc != 0:
            failures.append(f"the unchanged copy fails (rc {rc}):\n{out}")
        for i, (rel, inc, word) in enumerate(CASES):
            tree = os.path.join(tmp, f"case{i}")
            shutil.copytree(clean, tree)
            path = os.path.join(tree, rel)
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
            # After the file's first include, where a real edit would put it.
            at = next((n for n, l in enumerate(lines) if l.lstrip().startswith("#include")), 0) + 1
            lines.insert(at, inc + "\n")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(lines)
            rc, out = run(tree)
            found = [l for l in out.splitlines() if l.startswith(f"{rel}:")]
            want = f"{rel}:{at + 1}:"
            if rc != 1:
                failures.append(f"{rel} + {inc}: exit {rc}, not 1:\n{out}")
            elif len(found) != 1 or not found[0].startswith(want) or word not in found[0]:
                failures.append(f"{rel} + {inc}: wanted one line starting '{want}' naming '{word}', got:\n{out}")
            else:
                print(f"caught: {found[0][:160]}")
        # A C++ file in a folder no layer covers fails too.
        tree = os.path.join(tmp, "nolayer")
        shutil.copytree(clean, tree)
        os.makedirs(os.path.join(tree, "tools"))
        with open(os.path.join(tree, "tools", "x.cpp"), "w") as f:
            f.write('#include "base/text.hpp"\n')
        rc, out = run(tree)
        if rc != 1 or "tools/x.cpp:1: no layer covers folder 'tools'" not in out:
            failures.append(f"a file in an uncovered folder: exit {rc}:\n{out}")
        else:
            print("caught: tools/x.cpp in a folder no layer covers")
    for f in failures:
        print("FAIL:", f)
    print(f"house.includes_catches: {len(CASES) + 2 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
