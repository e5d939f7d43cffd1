#!/usr/bin/env bash
# System profiles (issue 14 item 6), under mpirun -np 2 here:
#   run     --criteria-profile h100-sxm-ndr runs; the reports name the profile; this host is no
#           HGX H100 (no GPU, no 8 RDMA devices), so the profile's identity rules fail it (exit
#           1) and no other of the profile's rules does
#   judge   with the recorded criteria (the profile) it rewrites the reports byte for byte, and
#           verify agrees; another profile needs --out and is named in the new report
#   errors  an unknown profile exits 2 listing the known ones; --criteria with a profile exits 2
#   list    shows the three profiles
source "$(dirname "$0")/lib.sh"
run="$GA_TMP/run"
ga_mpirun 2 --suite quick --criteria-profile h100-sxm-ndr --out "$run" >"$GA_TMP/run.log" 2>&1; rc=$?
check "run --criteria-profile h100-sxm-ndr: exit 1, this host is not the system ($rc)" [ "$rc" -eq 1 ]
check "  report.md names the profile" grep -qx -- "- Criteria: builtin + profile h100-sxm-ndr" "$run/report.md"
check "  report.json records the profile's criteria" \
  [ "$(jqr "$run/report.json" '.run.criteria.source')" = "builtin + profile h100-sxm-ndr" ]
check "  report.html names the profile" grep -q "builtin + profile h100-sxm-ndr" "$run/report.html"
failing=$(jq -r '[.verdicts[] | select(.severity == "error" and (.status == "fail" or .status == "missing"))
                  | .criterion | select(startswith("h100-sxm-ndr."))] | unique | join(" ")' "$run/report.json")
check "  the profile's failures are its identity rules, nothing else ($failing)" \
  [ "$failing" = "h100-sxm-ndr.gpu.count h100-sxm-ndr.gpu.model h100-sxm-ndr.rdma.count" ]
reason=$(jq -r '[.verdicts[] | select(.criterion == "h100-sxm-ndr.gpu.model")][0].reason' "$run/report.json")
check "  the missing GPU says the criteria require it ($reason)" grep -q "the criteria require it" <<<"$reason"

before=$(sha256sum "$run/report.json" "$run/report.md" | cut -d' ' -f1)
"$GA_BIN" judge "$run" >"$GA_TMP/judge.log" 2>&1; j=$?
check "judge DIR with the recorded profile: exit 1 like the run ($j)" [ "$j" -eq 1 ]
check "  the reports rewritten byte for byte" [ "$(sha256sum "$run/report.json" "$run/report.md" | cut -d' ' -f1)" = "$before" ]
"$GA_BIN" verify "$run" --unsigned >"$GA_TMP/verify.log" 2>&1; v=$?
check "verify DIR: exit 1 like the run ($v: $(tail -1 "$GA_TMP/verify.log"))" [ "$v" -eq 1 ]
"$GA_BIN" judge "$run" --criteria-profile a100-sxm4-80gb-hdr >"$GA_TMP/j2.log" 2>&1
check "judge --criteria-profile without --out: exit 2" [ $? -eq 2 ]
"$GA_BIN" judge "$run" --criteria-profile a100-sxm4-80gb-hdr --out "$GA_TMP/a100" >"$GA_TMP/j3.log" 2>&1
check "judge --criteria-profile a100-sxm4-80gb-hdr --out NEW: exit 1" [ $? -eq 1 ]
check "  the new report names that profile" grep -qx -- "- Criteria: builtin + profile a100-sxm4-80gb-hdr" "$GA_TMP/a100/report.md"
"$GA_BIN" verify "$run" --criteria-profile h200-sxm-ndr --unsigned >"$GA_TMP/v2.log" 2>&1
check "verify --criteria-profile h200-sxm-ndr: exit 1" [ $? -eq 1 ]

"$GA_BIN" run --criteria-profile h100-pcie --out "$GA_TMP/never" >"$GA_TMP/bad.log" 2>&1
check "an unknown profile: exit 2" [ $? -eq 2 ]
check "  listing the known ones" grep -q "known: a100-sxm4-80gb-hdr, h100-sxm-ndr, h200-sxm-ndr" "$GA_TMP/bad.log"
check "  and nothing run" test ! -e "$GA_TMP/never"
"$GA_BIN" verify "$run" --criteria-profile nope --unsigned >"$GA_TMP/bad2.log" 2>&1
check "verify with an unknown profile: exit 2" [ $? -eq 2 ]
"$GA_BIN" run --criteria "$GA_TMP/x.yaml" --criteria-profile h100-sxm-ndr >"$GA_TMP/both.log" 2>&1
check "--criteria and --criteria-profile together: exit 2" [ $? -eq 2 ]
"$GA_BIN" list >"$GA_TMP/list.log" 2>&1
for p in a100-sxm4-80gb-hdr h100-sxm-ndr h200-sxm-ndr; do
  check "list shows $p" grep -q "^  $p\$" "$GA_TMP/list.log"
done
finish
