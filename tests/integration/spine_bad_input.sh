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
finish
