#!/usr/bin/env bash
# --expect-topology holds every host against a stated topology: a host that is wrong the same
# way as all others still fails, and the verdicts name the host and what differs.
source "$(dirname "$0")/lib.sh"
host=$(hostname -s)
ga_mpirun 2 run --suite quick --out "$GA_TMP/dgx" \
  --expect-topology "$GA_FIXTURES/nvidia-smi-topo/nvidia-dgx-a100-8xA100-nv12-12xmlx5-nps4.txt" >/dev/null 2>&1
rc=$?
r=$GA_TMP/dgx/report.json
check "against a DGX A100 this host fails: exit 1, got $rc" [ "$rc" -eq 1 ]
check "topology.gpu_count fails on $host (0 vs expected 8)" [ "$(jqr "$r" "[.verdicts[] | select(.status==\"fail\" and (.criterion|test(\"expected\")) and .place==\"$host\" and .value==0 and .reference==8)] | length")" -ge 1 ]
check "the expected GPUs are missing, each named" [ "$(jqr "$r" "[.verdicts[] | select(.status==\"missing\") | .place] | map(select(startswith(\"$host/gpu:\"))) | unique | length")" = 8 ]
# Against its own recorded topology the host passes.
lstopo-no-graphics --of xml >"$GA_TMP/self.xml" 2>/dev/null || lstopo --of xml >"$GA_TMP/self.xml"
ga_mpirun 2 run --suite quick --out "$GA_TMP/self" --expect-topology "$GA_TMP/self.xml" >/dev/null 2>&1
rc=$?
check "against its own lstopo XML: exit 0, got $rc" [ "$rc" -eq 0 ]
check "expected-topology verdicts passed, none skipped" [ "$(jqr "$GA_TMP/self/report.json" '[.verdicts[] | select((.criterion|test("expected")) and .status!="pass")] | length')" = 0 ]
finish
