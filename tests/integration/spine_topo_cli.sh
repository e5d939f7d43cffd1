#!/usr/bin/env bash
# `gpuaccept topo --input FILE --json` prints only JSON, right on every recorded fixture
# (GPU and NIC counts, islands, all-to-all from tests/data/recorded/PROVENANCE.md).
source "$(dirname "$0")/lib.sh"
F=$GA_FIXTURES
# file | gpus | nics | islands | all_to_all
while IFS='|' read -r file gpus nics islands a2a; do
  [ -z "$file" ] && continue
  out=$("$GA_BIN" topo --input "$F/$file" --json 2>"$GA_TMP/err")
  rc=$?
  check "$file: exit 0" [ "$rc" -eq 0 ]
  check "$file: stdout is JSON only" jq -e . <<<"$out" >/dev/null
  got=$(jq -r '.hosts[0] | "\(.gpus|length)|\(.nics|length)|\(.gpu_link_islands|length)|\(.gpu_link_all_to_all)"' <<<"$out")
  check "$file: gpus|nics|islands|all_to_all = $gpus|$nics|$islands|$a2a (got $got)" [ "$got" = "$gpus|$nics|$islands|$a2a" ]
done <<'TABLE'
hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml|16|0|1|true
hwloc/hpe-cray-ex255a-4xMI300A-SPX-tuolumne.hwloc-v2.xml|4|4|1|true
hwloc/supermicro-epyc7402-8xMI50-corona.hwloc-v1.xml|8|1|0|false
hwloc/juwels-cluster-4xV100-2xEDR-jwc09n003.hwloc-v1.xml|4|2|0|false
hwloc/deep-esb-1socket-1xV100-1xEDR-dp-esb01.hwloc-v1.xml|1|1|0|false
hwloc/hp-sl390s-g7-2socket-mlx4-qdr.hwloc-v2.xml|3|1|0|false
hwloc/intel-4socket-noio-16em64t-4s2c2t.hwloc-v2.xml|0|0|0|false
nccl-topo/aws-p4d.24xlarge-topo.xml|8|4|0|false
nccl-topo/azure-ndv4-topo.xml|8|8|0|false
nccl-topo/azure-ndv5-topo.xml|8|8|0|false
nccl-topo/azure-ndv2-topo.xml|8|1|0|false
nccl-topo/azure-ncv4-topo.xml|4|1|0|false
nccl-topo/rccl-topo_8p_940-8xMI300X-8xCX7-400G.xml|8|8|1|true
nvidia-smi-topo/nvidia-dgx-a100-8xA100-nv12-12xmlx5-nps4.txt|8|12|1|true
nvidia-smi-topo/princeton-della-2xA100-pcie-2numa.txt|2|2|0|false
nvidia-smi-topo/pcie-only-8gpu-2numa-no-nvlink-no-nic.txt|8|0|0|false
nvidia-smi-topo/dell-8xH100-topo-mp-pcie-only-12nic-deepep397.txt|8|12|0|false
TABLE
# Spot checks of the per-GPU fields the issue names.
j=$("$GA_BIN" topo --input "$F/nvidia-smi-topo/nvidia-dgx-a100-8xA100-nv12-12xmlx5-nps4.txt" --json)
check "DGX A100: GPU NUMA nodes 3,3,1,1,7,7,5,5" [ "$(jq -r '[.hosts[0].gpus[].numa_node] | join(",")' <<<"$j")" = "3,3,1,1,7,7,5,5" ]
check "DGX A100: GPU0 nearest mlx5_0,mlx5_1 over PXB" [ "$(jq -r '.hosts[0].gpus[0] | (.nearest_nics|join(",")) + " " + .nic_path' <<<"$j")" = "mlx5_0,mlx5_1 PXB" ]
j=$("$GA_BIN" topo --input "$F/hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml" --json)
check "DGX-2: GPU 0 at 0000:34:00.0 on NUMA 0" [ "$(jq -r '.hosts[0].gpus[0] | .pci_bus_id + " " + (.numa_node|tostring)' <<<"$j")" = "0000:34:00.0 0" ]
check "DGX-2: GPU 8 on NUMA 1" [ "$(jq -r '.hosts[0].gpus[8].numa_node' <<<"$j")" = 1 ]
j=$("$GA_BIN" topo --input "$F/nccl-topo/azure-ndv2-topo.xml" --json)
check "ND v2: NUMA 1 GPUs reach the NIC over SYS" [ "$(jq -r '[.hosts[0].gpus[] | select(.numa_node==1) | .nic_path] | unique | join(",")' <<<"$j")" = SYS ]
"$GA_BIN" topo --input "$F/nccl-topo/azure-ncv4-graph-dump.xml" --json >"$GA_TMP/o" 2>"$GA_TMP/e"
check "an NCCL graph dump is refused: exit 2" [ $? -eq 2 ]
check "and says why" grep -qi "graph" "$GA_TMP/e"
check "live: this host's topology is JSON with one host" [ "$("$GA_BIN" topo --json | jq -r '.hosts | length')" = 1 ]
finish
