#!/usr/bin/env bash
# A journal that shows every edit (issue 34 item 1), under mpirun -np 2 here: a finished run's
# samples.jsonl with one sample line stripped of its seq or chain, doubled, deleted, swapped
# with the next, or one value edited: `judge` and `verify --unsigned` exit 2 naming the line
# where the file departs from what was written. Its last line deleted: judge and verify exit 2
# on the manifest's journal_chain (without a manifest, judge reads a run cut short: exit 3). A
# line with seq 10^15: exit 2 in under a second and under 200 MiB.
source "$(dirname "$0")/lib.sh"
run="$GA_TMP/run"
ga_mpirun 2 --suite quick --out "$run" >"$GA_TMP/run.log" 2>&1; rc=$?
check "the run: exit 0 or 1 ($rc)" bash -c "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
check "every line of its journal ends with its seq and chain" \
  test "$(grep -c -v -E ',"seq":[0-9]+,"chain":"[0-9a-f]{64}"\}$' "$run/samples.jsonl")" = 0
check "manifest.json holds the journal's last chain" \
  test "$(jq -r .journal_chain "$run/manifest.json")" = "$(tail -1 "$run/samples.jsonl" | sed -E 's/.*"chain":"([0-9a-f]{64})"\}$/\1/')"
"$GA_BIN" verify "$run" --unsigned >/dev/null 2>&1
check "the run as written verifies ($?)" [ $? -eq "$rc" ]
n=$(grep -n '"type":"sample"' "$run/samples.jsonl" | grep '"value":[0-9]' | sed -n 3p | cut -d: -f1)
total=$(wc -l <"$run/samples.jsonl")

# edit NAME LINE PYTHON: a copy of the run whose journal's lines (a list `l`, no newlines) the
# Python statement changed; then judge and verify must both exit 2 naming samples.jsonl:LINE.
edit() {
  local name=$1 line=$2 code=$3 d="$GA_TMP/$1"
  cp -r "$run" "$d"
  python3 - "$d/samples.jsonl" "$n" <<PY
import re, sys
p, n = sys.argv[1], int(sys.argv[2]) - 1
l = open(p).read().split("\n")[:-1]
$code
open(p, "w").write("".join(x + "\n" for x in l))
PY
  "$GA_BIN" judge "$d" >"$d.judge.log" 2>&1; local j=$?
  "$GA_BIN" verify "$d" --unsigned >"$d.verify.log" 2>&1; local v=$?
  check "$name: judge exits 2 ($j) naming samples.jsonl:$line" \
    bash -c "[ $j -eq 2 ] && grep -q 'samples.jsonl:$line: ' '$d.judge.log'"
  check "$name: verify exits 2 ($v) naming samples.jsonl:$line" \
    bash -c "[ $v -eq 2 ] && grep -q 'TAMPERED: samples.jsonl:$line: ' '$d.verify.log'"
}
edit strip-seq "$n" 'l[n] = re.sub(r",\"seq\":[0-9]+", "", l[n])'
edit strip-chain "$n" 'l[n] = re.sub(r",\"chain\":\"[0-9a-f]{64}\"", "", l[n])'
edit doubled "$((n + 1))" 'l.insert(n, l[n])'
edit deleted "$n" 'del l[n]'
edit swapped "$n" 'l[n], l[n + 1] = l[n + 1], l[n]'
edit one-value "$n" 'l[n] = re.sub(r"(\"value\":[0-9]*)([0-9])", lambda m: m.group(1) + str((int(m.group(2)) + 1) % 10), l[n], count=1)'
edit first-line 1 'l[0] = l[0].replace("\"quick\"", "\"quack\"", 1)'

# The last line deleted: nothing inside the file shows it; the manifest's chain does.
# (verify first: judge DIR writes a new manifest of what it judged, which is why only a signature
# tells a run's own directory from one edited and judged again.)
cp -r "$run" "$GA_TMP/truncated" && sed -i '$d' "$GA_TMP/truncated/samples.jsonl"
"$GA_BIN" verify "$GA_TMP/truncated" --unsigned >"$GA_TMP/truncated.verify.log" 2>&1; v=$?
check "the last line deleted: verify exits 2 ($v) on the manifest's journal_chain" \
  bash -c "[ $v -eq 2 ] && grep -q \"is not the manifest's journal_chain\" '$GA_TMP/truncated.verify.log'"
"$GA_BIN" judge "$GA_TMP/truncated" >"$GA_TMP/truncated.judge.log" 2>&1; j=$?
check "the last line deleted: judge exits 2 ($j) naming the line the journal now ends at, against the manifest's chain" \
  bash -c "[ $j -eq 2 ] && grep -q 'samples.jsonl:$((total - 1)): the journal ends here, and no record of it has the chain' '$GA_TMP/truncated.judge.log'"
# Without a manifest nothing tells it from a killed run's journal: cut short, exit 3, not a pass.
mkdir -p "$GA_TMP/cut" && cp "$GA_TMP/truncated/samples.jsonl" "$GA_TMP/cut/"
"$GA_BIN" judge "$GA_TMP/cut" >"$GA_TMP/cut.judge.log" 2>&1; j=$?
check "the same journal alone (no manifest): judge reads a run cut short, exit 3 ($j)" [ "$j" -eq 3 ]

# One hostile line: seq 10^15 is refused before anything is sized from it.
cp -r "$run" "$GA_TMP/huge"
sed -i -E "${n}s/,\"seq\":[0-9]+,/,\"seq\":1000000000000000,/" "$GA_TMP/huge/samples.jsonl"
/usr/bin/time -f "%e %M" -o "$GA_TMP/huge.time" "$GA_BIN" judge "$GA_TMP/huge" >"$GA_TMP/huge.log" 2>&1; j=$?
read -r secs kb < <(tail -1 "$GA_TMP/huge.time")
check "seq 10^15: judge exits 2 ($j) naming samples.jsonl:$n" bash -c "[ $j -eq 2 ] && grep -q 'samples.jsonl:$n: ' '$GA_TMP/huge.log'"
check "  in under a second ($secs s) and 200 MiB ($kb KiB)" \
  bash -c "awk -v s=$secs -v k=$kb 'BEGIN { exit !(s < 1 && k < 200 * 1024) }'"
log "journal of $total lines, edited at line $n"
finish
