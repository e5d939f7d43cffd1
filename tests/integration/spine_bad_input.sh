#!/usr/bin/env bash
# Bad usage or a bad input file: exit 2, naming the file and the line, on every path.
source "$(dirname "$0")/lib.sh"
cat >"$GA_TMP/bad.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: a
    metric: hostmem.triad_bw
    compare: ">>"
    value: 1
YAML
"$GA_BIN" judge /nonexistent >"$GA_TMP/o" 2>&1; check "judge of a missing dir: exit 2" [ $? -eq 2 ]
"$GA_BIN" run --bogus >"$GA_TMP/o" 2>&1; check "unknown option: exit 2" [ $? -eq 2 ]
"$GA_BIN" frobnicate >"$GA_TMP/o" 2>&1; check "unknown command: exit 2" [ $? -eq 2 ]
ga_mpirun 2 run --criteria "$GA_TMP/bad.yaml" --out "$GA_TMP/r1" >"$GA_TMP/o" 2>&1
check "bad criteria under mpirun: exit 2" [ $? -eq 2 ]
check "the message names the file and line 5" grep -q "bad.yaml:5:" "$GA_TMP/o"
check "no run directory was created" test ! -e "$GA_TMP/r1"
ga_mpirun 2 run --suite no-such-suite >"$GA_TMP/o" 2>&1; check "unknown suite: exit 2" [ $? -eq 2 ]
check "the message lists the built-in suites" grep -q "built-in: " "$GA_TMP/o"
ga_mpirun 2 run --expect-topology /nonexistent.xml >"$GA_TMP/o" 2>&1; check "missing expected topology: exit 2" [ $? -eq 2 ]
printf '<topology>\n<object type="Machine">\n' >"$GA_TMP/torn.xml"
"$GA_BIN" topo --input "$GA_TMP/torn.xml" >"$GA_TMP/o" 2>&1; check "torn hwloc XML: exit 2" [ $? -eq 2 ]
check "the message names the file" grep -q "torn.xml" "$GA_TMP/o"
ga_mpirun 1 run --probe-timeout zero >"$GA_TMP/o" 2>&1; check "bad --probe-timeout: exit 2" [ $? -eq 2 ]

# Declared metrics and parameters: a typo is refused before anything runs, naming what is wrong.
ga_mpirun 2 run --suite quick --set hostmem.arary_mib=16 --out "$GA_TMP/r2" >"$GA_TMP/o" 2>&1
check "--set with an unknown key: exit 2" [ $? -eq 2 ]
check "the message names the key and the probe's known keys" \
  grep -q "hostmem.arary_mib: unknown parameter (hostmem takes: array_mib, iterations)" "$GA_TMP/o"
check "no run directory was created for it" test ! -e "$GA_TMP/r2"
ga_mpirun 1 run --suite quick --set hostmem.array_mib=0 >"$GA_TMP/o" 2>&1
check "--set out of range: exit 2 naming the range" \
  bash -c '[ $0 -eq 2 ] && grep -q "hostmem.array_mib: must be a whole number >= 1, got 0" "$1"' $? "$GA_TMP/o"
cat >"$GA_TMP/suite-typo.yaml" <<'YAML'
schema_version: 1
name: typo
description: a misspelt parameter
probes:
  - name: hostmem
    params:
      iterations: 2
      arary_mib: 16
YAML
ga_mpirun 1 run --suite "$GA_TMP/suite-typo.yaml" >"$GA_TMP/o" 2>&1
check "suite file with an unknown key: exit 2 naming file and line 8" \
  bash -c '[ $0 -eq 2 ] && grep -q "suite-typo.yaml:8: hostmem.arary_mib: unknown parameter" "$1"' $? "$GA_TMP/o"
cat >"$GA_TMP/undeclared.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: a
    metric: hostmem.triad_bw
    compare: ">="
    value: 1
  - name: b
    metric: hostmem.triad_bww
    compare: ">="
    value: 1
YAML
ga_mpirun 2 run --criteria "$GA_TMP/undeclared.yaml" --out "$GA_TMP/r3" >"$GA_TMP/o" 2>&1
check "criteria on an undeclared metric: exit 2" [ $? -eq 2 ]
check "the message names line 7, the metric and the nearest declared one" \
  grep -q "undeclared.yaml:7: criterion b: metric hostmem.triad_bww is declared by no probe; did you mean hostmem.triad_bw" "$GA_TMP/o"
ga_mpirun 2 run --suite quick --out "$GA_TMP/r4" >/dev/null 2>&1
"$GA_BIN" judge "$GA_TMP/r4" --criteria "$GA_TMP/undeclared.yaml" --out "$GA_TMP/r4j" >"$GA_TMP/o" 2>&1
check "judge --criteria on an undeclared metric: exit 2 naming line 7" \
  bash -c '[ $0 -eq 2 ] && grep -q "undeclared.yaml:7:" "$1"' $? "$GA_TMP/o"
# Hostile XML (issue 14 item 8): a DOCTYPE declaring entities crashed hwloc's libxml2 import
# with SIGSEGV; it is refused before hwloc sees it, naming the file and the DOCTYPE's line.
hw=$GA_FIXTURES/hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml
{ head -1 "$hw"; printf '<!DOCTYPE topology [\n<!ENTITY lol "lol">\n<!ENTITY lol1 "&lol;&lol;&lol;&lol;">\n]>\n'; tail -n +3 "$hw"; } >"$GA_TMP/doctype.xml"
"$GA_BIN" topo --input "$hw" >/dev/null 2>&1; check "the recorded file itself loads (hwloc's own DOCTYPE)" [ $? -eq 0 ]
"$GA_BIN" topo --input "$GA_TMP/doctype.xml" >"$GA_TMP/o" 2>&1
check "topo --input with an entity-declaring DOCTYPE: exit 2, no crash (got $?)" [ $? -eq 2 ]
check "the message names the file, line 2 and the DOCTYPE" grep -q "doctype.xml:2: DOCTYPE not accepted" "$GA_TMP/o"
ga_mpirun 1 run --suite quick --expect-topology "$GA_TMP/doctype.xml" --out "$GA_TMP/r5" >"$GA_TMP/o" 2>&1
check "run --expect-topology with it: exit 2" [ $? -eq 2 ]
check "naming the file, line 2 and the DOCTYPE" grep -q "doctype.xml:2: DOCTYPE not accepted" "$GA_TMP/o"

# A journal whose lines were duplicated judged PASS without a word: it is refused, naming the line.
"$GA_BIN" judge "$GA_TMP/r4" >"$GA_TMP/o" 2>&1; check "the run's own journal is judged (not exit 2)" [ $? -ne 2 ]
n=$(grep -n '"type":"sample"' "$GA_TMP/r4/samples.jsonl" | sed -n 5p | cut -d: -f1)
cp -r "$GA_TMP/r4" "$GA_TMP/r4dup"
sed -i "${n}p" "$GA_TMP/r4dup/samples.jsonl"  # sample line $n twice
"$GA_BIN" judge "$GA_TMP/r4dup" >"$GA_TMP/o" 2>&1; check "a sample line repeated: judge exits 2" [ $? -eq 2 ]
check "naming the repeat: the chain breaks at it" grep -q "samples.jsonl:$((n + 1)): the chain breaks here" "$GA_TMP/o"
cp -r "$GA_TMP/r4" "$GA_TMP/r4cat"
total=$(wc -l <"$GA_TMP/r4/samples.jsonl")
cat "$GA_TMP/r4/samples.jsonl" "$GA_TMP/r4/samples.jsonl" >"$GA_TMP/r4cat/samples.jsonl"
"$GA_BIN" judge "$GA_TMP/r4cat" >"$GA_TMP/o" 2>&1; check "the journal twice in one file: judge exits 2" [ $? -eq 2 ]
check "naming its second run_start" grep -q "samples.jsonl:$((total + 1)): a second run_start (the first is line 1)" "$GA_TMP/o"
# Hostile --criteria, --suite and --expect-topology files (issue 14 item 8): binary junk, deep
# nesting, alias bombs, numbers past any range, values of the wrong type, text that is not
# UTF-8, lines long enough to overflow a recursive regex. Each is refused with exit 2 (not a
# crash: 134/139) and a message naming the file and, where the input has lines, the line.
# `run` reads its inputs before MPI_Init, and `judge --criteria` and `topo --input` through the
# same loaders, so most cases run without an mpirun each (4 s apiece here); one of each kind
# goes through mpirun too.
H=$GA_TMP/hostile; mkdir -p "$H"
python3 - "$H" <<'PY'
import sys
d = sys.argv[1]
import random
def w(name, text):
    with open(f'{d}/{name}', 'wb' if isinstance(text, bytes) else 'w') as f: f.write(text)
random.seed(14)  # the same junk every run: its first bad byte is on line 1
w('junk.bin', b'\x9c' + bytes(random.randrange(256) for _ in range(3000)) + b'\0\0\0')
deep = '[' * 100000 + ']' * 100000
w('c-deep.yaml', 'schema_version: 1\ncriteria: ' + deep + '\n')
w('c-huge.yaml', 'schema_version: 1\ncriteria:\n  - name: a\n    metric: hostmem.triad_bw\n    compare: ">="\n    value: 1e999999\n')
w('c-hugeversion.yaml', 'schema_version: 99999999999999999999999999\ncriteria: []\n')
w('c-type.yaml', 'schema_version: 1\ncriteria:\n  name: a\n')
w('c-utf8.yaml', b'schema_version: 1\ncriteria:\n  - name: caf\xe9\n')  # Latin-1
w('s-deep.yaml', 'name: x\nprobes:\n  - name: hostmem\n    params: {a: ' + deep + '}\n')
lol = ['name: lol', 'probes:', '  - name: hostmem', '    params:', '      a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
lol += [f'      a{i}: &a{i} [' + ', '.join([f'*a{i-1}'] * 10) + ']' for i in range(1, 9)]
w('s-laughs.yaml', '\n'.join(lol) + '\n')
w('s-type.yaml', 'schema_version: 1\nname: {a: b}\nprobes: [hostmem]\n')
w('s-huge.yaml', 'name: x\nprobes:\n  - name: hostmem\n    params:\n      iterations: 99999999999999999999999999999\n')
w('s-nul.yaml', b'name: x\nprobes: [hostmem]\ndescription: a\x1f\x00_b\n')
w('t-utf16.xml', '<?xml version="1.0"?>\n<topology/>\n'.encode('utf-16'))
w('t-decl.xml', '<?xml version="1.0" encoding="' + 'u' * 300000 + '"?>\n<topology/>\n')
w('t-deep.xml', '<?xml version="1.0" encoding="UTF-8"?>\n<topology version="2.0">\n' + '<object type="Group">\n' * 100000 + '</object>\n' * 100000 + '</topology>\n')
w('t-nccl-type.xml', '<system version="1">\n  <cpu numaid="zero"/>\n</system>\n')
w('t-numa.txt', '\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV12\t0-15\t99999999999999999999\nGPU1\tNV12\t X \t0-15\t0\n')
w('t-blank.txt', ' ' * 300000 + '\n')
PY
refused() {  # refused LABEL PATTERN COMMAND...: exit 2 and PATTERN in the output
  local label=$1 pattern=$2; shift 2
  "$@" >"$GA_TMP/o" 2>&1
  local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$pattern" "$GA_TMP/o"; then pass "$label"
  else fail "$label: exit $rc (want 2), want '$pattern' in: $(head -c 300 "$GA_TMP/o")"; fi
}
for c in "junk.bin|$H/junk.bin:1: " "c-deep.yaml|$H/c-deep.yaml:2: " "c-huge.yaml|$H/c-huge.yaml:6: " \
         "c-hugeversion.yaml|$H/c-hugeversion.yaml:1: " "c-type.yaml|$H/c-type.yaml:3: " "c-utf8.yaml|$H/c-utf8.yaml:3: not UTF-8"; do
  refused "judge --criteria ${c%%|*}: exit 2 naming file and line" "${c#*|}" \
    "$GA_BIN" judge "$GA_TMP/r4" --criteria "$H/${c%%|*}" --out "$GA_TMP/r4h"
done
check "no report was written for any of them" test ! -e "$GA_TMP/r4h"
refused "run --criteria of deep nesting under mpirun: exit 2 naming file and line" "$H/c-deep.yaml:2: " \
  ga_mpirun 1 run --criteria "$H/c-deep.yaml" --out "$GA_TMP/r6"
for c in "junk.bin|$H/junk.bin:1: " "s-deep.yaml|$H/s-deep.yaml:4: " "s-laughs.yaml|more than 100000 parameter values" \
         "s-type.yaml|$H/s-type.yaml:2: name must be a single value" "s-huge.yaml|$H/s-huge.yaml:5: " \
         "s-nul.yaml|$H/s-nul.yaml:3: control character"; do
  refused "run --suite ${c%%|*}: exit 2 naming file and line" "${c#*|}" \
    "$GA_BIN" run --suite "$H/${c%%|*}" --out "$GA_TMP/r6"
done
refused "run --suite of an alias bomb under mpirun: exit 2 naming the file" "$H/s-laughs.yaml:" \
  ga_mpirun 1 run --suite "$H/s-laughs.yaml" --out "$GA_TMP/r6"
for c in "junk.bin|$H/junk.bin" "t-utf16.xml|$H/t-utf16.xml:1: NUL byte" "t-decl.xml|$H/t-decl.xml:1: XML declaration" \
         "t-deep.xml|$H/t-deep.xml" "t-nccl-type.xml|$H/t-nccl-type.xml:2: cpu numaid 'zero' is not a number" \
         "t-numa.txt|$H/t-numa.txt:2: NUMA Affinity 99999999999999999999 is out of range" \
         "t-blank.txt|$H/t-blank.txt: unrecognised topology format"; do
  refused "topo --input ${c%%|*}: exit 2 naming the file" "${c#*|}" "$GA_BIN" topo --input "$H/${c%%|*}"
done
refused "run --expect-topology of UTF-16 under mpirun: exit 2 naming file and line" "$H/t-utf16.xml:1: NUL byte" \
  ga_mpirun 1 run --suite quick --expect-topology "$H/t-utf16.xml" --out "$GA_TMP/r6"
check "no run directory was created for any of them" test ! -e "$GA_TMP/r6"
finish
