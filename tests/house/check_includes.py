#!/usr/bin/env python3
"""The house's include rule as a check: every C++ file's project includes against the layer
table in docs/layers.toml (the data docs/design.md's table is generated from).

  check_includes.py [--root DIR] [--only FOLDER]      check; exit 1 naming FILE:LINE and the rule
  check_includes.py --table                           print the markdown table
  check_includes.py --write-table docs/design.md      regenerate the table between its markers
  check_includes.py --check-table docs/design.md      fail when the page's table is not the data's

Reads the sources only: it runs from a configured tree without building anything, so it can
check a tree that does not compile. Python's standard library alone (tomllib, 3.11).
"""
import argparse
import os
import re
import sys
import tomllib

SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TABLE_BEGIN = "<!-- layers:begin: generated from docs/layers.toml by tests/house/check_includes.py --write-table; edit the data, not the table -->"
TABLE_END = "<!-- layers:end -->"
PROBE_WILDCARD = "probes/*"


class Layers:
    def __init__(self, path):
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise SystemExit(f"{path}: {e}")
        self.path = path
        self.entries = data.get("layer", [])
        if not self.entries:
            raise SystemExit(f"{path}: no [[layer]] entries")
        self.by_folder = {}
        for i, e in enumerate(self.entries, 1):
            for key in ("folder", "may_include", "holds", "library"):
                if key not in e:
                    raise SystemExit(f"{path}: layer {i} has no '{key}'")
            if e["folder"] in self.by_folder:
                raise SystemExit(f"{path}: layer '{e['folder']}' twice")
            self.by_folder[e["folder"]] = e
        known = set(self.by_folder) | {"*"}
        for e in self.entries:
            for t in e["may_include"]:
                if t not in known:
                    raise SystemExit(f"{path}: layer '{e['folder']}' may include '{t}', which is no layer")
        # Folders directly under probes/ that an entry names (harness, vendor, devices): the
        # floors every probe may stand on. Every other folder there is a probe.
        self.probe_floors = {f for f in self.by_folder if f.startswith("probes/") and f != PROBE_WILDCARD}
        self.tops = {f.split("/")[0] for f in self.by_folder}

    def folder_of(self, relpath):
        """(concrete folder, layer key) of a path from the root, or (None, None) when no layer
        covers it. A probe's folder is 'probes/NAME', its key 'probes/*'."""
        parts = relpath.split("/")
        if parts[0] == "probes":
            if len(parts) == 2:
                return "probes", "probes"
            sub = "probes/" + parts[1]
            if sub in self.probe_floors:
                return sub, sub
            if PROBE_WILDCARD in self.by_folder:
                return sub, PROBE_WILDCARD
            return None, None
        if parts[0] in self.by_folder and len(parts) > 1:
            return parts[0], parts[0]
        return None, None

    def describe(self, folder, key):
        if key == PROBE_WILDCARD:
            return f"{folder} (a probe's folder)"
        if key == "probes":
            return "probes/ (the contract, files directly in probes/)"
        return folder

    def allowed(self, key):
        spec = self.by_folder[key]["may_include"]
        return ", ".join(spec) if spec else "nothing of the project but itself"


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        # Build trees and hidden folders are not sources (a build tree's generated files and a
        # fetched dependency are not ours to rule on).
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".")
                             and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt"))
                             and not (rel == "." and d.startswith("build")))
        for name in sorted(filenames):
            if name.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def resolve(root, layers, relfile, bracket, target):
    """The include's path from the root when it names a file of the project, else None."""
    if bracket == '"' and ("/" not in target or target.startswith(("./", "../"))):
        # Relative to the including file (a sideways `#include "../gpu/x.hpp"` is caught too).
        # A path that leaves the tree comes back starting '../'; the caller reports it.
        return os.path.normpath(os.path.join(os.path.dirname(relfile), target)).replace(os.sep, "/")
    if target.split("/")[0] in layers.tops:
        return target
    return None  # a system or dependency header


def check(root, layers, only=None):
    problems = []
    counted = 0
    for relfile in source_files(root):
        folder, key = layers.folder_of(relfile)
        if only and folder != only and not (only == PROBE_WILDCARD and key == PROBE_WILDCARD):
            continue
        if folder is None:
            if "/" in relfile:
                problems.append(f"{relfile}:1: no layer covers folder '{os.path.dirname(relfile)}': "
                                f"add it to {layers.path} before it holds code")
            continue
        counted += 1
        rule = layers.by_folder[key]
        try:
            with open(os.path.join(root, relfile), encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            problems.append(f"{relfile}:1: cannot read: {e}")
            continue
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            bracket, target = m.group(1), m.group(2)
            path = resolve(root, layers, relfile, bracket, target)
            if path is None:
                continue
            shown = f'#include {bracket}{target}{">" if bracket == "<" else chr(34)}'
            if path.startswith("../"):
                problems.append(f"{relfile}:{lineno}: {shown} leaves the tree")
                continue
            tfolder, tkey = layers.folder_of(path)
            if tfolder is None:
                problems.append(f"{relfile}:{lineno}: {shown} names '{path}', which no layer covers")
                continue
            if tfolder == folder or "*" in rule["may_include"] or tkey in rule["may_include"]:
                continue
            if key == PROBE_WILDCARD and tkey == PROBE_WILDCARD:
                why = "a probe's folder includes another probe's folder; what two probes share goes down to probes/harness, probes/vendor or probes/devices"
            else:
                why = f"{layers.describe(folder, key)} may not include {layers.describe(tfolder, tkey)}"
            problems.append(f"{relfile}:{lineno}: {shown}: {why} "
                            f"(rule '{key}' in {os.path.basename(layers.path)}: may include {layers.allowed(key)})")
    return problems, counted


def table(layers):
    out = ["| folder | library | holds | may include |", "|---|---|---|---|"]
    for e in layers.entries:
        folder = "`probes/<probe>/`" if e["folder"] == PROBE_WILDCARD else (
            "`probes/` (top level)" if e["folder"] == "probes" else f"`{e['folder']}/`")
        spec = e["may_include"]
        if spec == ["*"]:
            may = "any layer"
        elif not spec:
            may = "its own folder only"
        else:
            may = ", ".join("`probes/` (top level)" if s == "probes" else f"`{s}/`" for s in spec)
        if e.get("why"):
            may += f"; {e['why']}"
        lib = e["library"]
        lib = lib if lib.startswith("(") else ", ".join(f"`{x.strip()}`" for x in lib.split(","))
        out.append(f"| {folder} | {lib} | {e['holds']} | {may} |")
    return "\n".join(out) + "\n"


def page_table(page):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    b, e = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if b < 0 or e < b:
        raise SystemExit(f"{page}: no generated layer table (the markers '{TABLE_BEGIN}' and '{TABLE_END}')")
    return text, b + len(TABLE_BEGIN), e


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..")))
    ap.add_argument("--layers", help="the layer data (default ROOT/docs/layers.toml)")
    ap.add_argument("--only", help="check one folder's files (e.g. base)")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--write-table", metavar="PAGE")
    ap.add_argument("--check-table", metavar="PAGE")
    a = ap.parse_args()
    layers = Layers(a.layers or os.path.join(a.root, "docs", "layers.toml"))
    if a.table:
        sys.stdout.write(table(layers))
        return 0
    if a.write_table:
        text, b, e = page_table(a.write_table)
        with open(a.write_table, "w", encoding="utf-8") as f:
            f.write(text[:b] + "\n" + table(layers) + text[e:])
        return 0
    if a.check_table:
        text, b, e = page_table(a.check_table)
        if text[b:e].strip() != table(layers).strip():
            print(f"{a.check_table}: the layer table differs from {layers.path}; regenerate it: "
                  f"python3 tests/house/check_includes.py --write-table {a.check_table}")
            return 1
        print(f"{a.check_table}: the layer table is {os.path.basename(layers.path)}'s")
        return 0
    problems, counted = check(a.root, layers, a.only)
    for p in problems:
        print(p)
    if problems:
        print(f"house.includes: {len(problems)} include(s) break the layer rule in {counted} files")
        return 1
    if counted == 0:
        print(f"house.includes: no source file checked under {a.root}" + (f" in {a.only}" if a.only else ""))
        return 1
    print(f"house.includes: {counted} files" + (f" in {a.only}" if a.only else "") + ", every project include within its layer's rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
