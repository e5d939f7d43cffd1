#!/usr/bin/env python3
"""Writes tests/fuzz/dicts/TARGET.dict, the libFuzzer dictionary of each fuzz target: the keys,
keywords and syntax its format has, taken from the target's seed corpus (run-fuzz.sh --seeds)
plus the format's own punctuation. A dictionary lets the fuzzer spell `"seq":` or `scope:`
instead of finding it byte by byte. Run after a format gains a key:
    python3 tests/fuzz/make-dicts.py
"""
import json
import os
import re
import subprocess

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def seeds(target):
    out = subprocess.run(["bash", os.path.join(SRC, "tests/fuzz/run-fuzz.sh"), "--seeds", target],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def escape(s):
    # libFuzzer's dictionary syntax: "..." with \\, \" and \xAB; one entry per line.
    out = ""
    for c in s:
        if c in '\\"':
            out += "\\" + c
        elif " " <= c <= "~":
            out += c
        else:
            out += "\\x%02X" % ord(c)
    return out


def write(target, tokens, what):
    tokens = sorted(set(t for t in tokens if 0 < len(t) <= 40))
    with open(os.path.join(SRC, "tests/fuzz/dicts", target + ".dict"), "w") as f:
        f.write(f"# libFuzzer dictionary for fuzz_{target}: {what}.\n")
        f.write("# Made by tests/fuzz/make-dicts.py from the seed corpus; regenerate after a format change.\n")
        for i, t in enumerate(tokens):
            f.write(f'k{i}="{escape(t)}"\n')
    print(f"{target}: {len(tokens)} entries")


def json_tokens(o, acc):
    if isinstance(o, dict):
        for k, v in o.items():
            acc.add(f'"{k}":')
            json_tokens(v, acc)
    elif isinstance(o, list):
        for v in o:
            json_tokens(v, acc)
    elif isinstance(o, str) and len(o) < 24 and re.fullmatch(r"[A-Za-z_.:-]+", o):
        acc.add(f'"{o}"')


def json_docs(path):
    text = open(path, errors="replace").read()
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():  # JSON lines (the journal)
        try:
            yield json.loads(line)
        except ValueError:
            pass


def main():
    os.makedirs(os.path.join(SRC, "tests/fuzz/dicts"), exist_ok=True)
    for t in ["journal", "campaign", "manifest", "dsse"]:
        acc = {"{", "}", "[", "]", ":", ",", "null", "true", "false", "1e308", "-0", '"\\u0000"'}
        for f in seeds(t):
            for doc in json_docs(f):
                json_tokens(doc, acc)
        write(t, acc, "JSON keys and keyword values the seeds use")
    for t in ["criteria", "suite"]:
        acc = {": ", "- ", "{", "}", "[", "]", '"', "'", "&a", "*a", "<<: ", "!!str", "~", "null", "true", "false"}
        for f in seeds(t):
            for line in open(f, errors="replace"):
                acc.update(m.group(1) + ":" for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_.-]*):", line))
                acc.update(m.group(0) for m in re.finditer(r'"(<=|>=|<|>|==|!=)"', line))
        write(t, acc, "YAML keys and compare operators the seeds use")
    for t in ["hwloc_xml", "nccl_xml"]:
        acc = {'<?xml version="1.0"?>', "<!DOCTYPE", "/>", ">", "</", '="', '"'}
        for f in seeds(t):
            s = open(f, errors="replace").read()
            for m in re.finditer(r"<([A-Za-z_][\w.-]*)", s):
                acc.update({"<" + m.group(1), "</" + m.group(1) + ">"})
            acc.update(m.group(1) + '="' for m in re.finditer(r'\s([A-Za-z_][\w.-]*)="', s))
            acc.update(f'{m.group(1)}="{m.group(2)}"' for m in re.finditer(r'(type|name)="(\w+)"', s))
        write(t, acc, "XML elements, attributes and type/name values the seeds use")
    acc = {"\t", "X", "CPU Affinity", "NUMA Affinity", "GPU NUMA ID", "Legend:", "NIC Legend:"}
    for f in seeds("nvidia_smi"):
        for tok in re.split(r"[\t ]+", open(f, errors="replace").read()):
            if re.fullmatch(r"(NV\d+|PIX|PXB|PHB|NODE|SYS|X|N/A|GPU\d+|NIC\d+|mlx5_\d+)", tok.strip()):
                acc.add(tok.strip())
    write("nvidia_smi", acc, "matrix headers and link kinds the seeds use")
    write("bad_hosts", ["# gpuaccept bad hosts:", "# run: ", "# overall: ", "# judged: ", "# columns: ", "\t", "\n",
                        "node fault", "tool error", "inconclusive", "FAIL", "PASS", "INCONCLUSIVE", "TOOL ERROR",
                        "RESTART_BM", "@", ","], "header lines, columns and outcomes")
    write("switch_map", ["SwitchName=", "Switches=", "Nodes=", "LinkSpeed=", "[", "]", "-", ",", "#", "\n",
                         "node[01-16]", "leaf", "spine", "core"],
          "Slurm topology.conf keys and host-range syntax; the plain map's columns")


if __name__ == "__main__":
    main()
