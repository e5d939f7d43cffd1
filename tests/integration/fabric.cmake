# Fabric (issue 3): the p2p probe and its culprit analysis on fake hosts. Fake hosts share
# namespaces and all the cores: SERIAL. nfq_delay (the delay helper) is built by `all`.
ga_integration_test(fabric_p2p_clean fabric_p2p_clean.sh TIMEOUT 300 SERIAL)
ga_integration_test(fabric_p2p_host_faults fabric_p2p_host_faults.sh TIMEOUT 400 SERIAL)
ga_integration_test(fabric_p2p_link_faults fabric_p2p_link_faults.sh TIMEOUT 300 SERIAL)
ga_integration_test(fabric_adaptive fabric_adaptive.sh TIMEOUT 300 SERIAL)
# 16 ranks on 8 fake hosts (the user's `mpirun -np 16`): clean fabric and default suites, and
# one slow host, one slow link, one lossy host, each named alone (issue 11). About 2.5 minutes.
ga_integration_test(fabric_8x2 fabric_8x2.sh TIMEOUT 600 SERIAL)
# The two ends of a p2p measurement meet before its clock starts: one end late by more than
# the measurement's limit still measures (two ranks on this host, no fake hosts).
if(TARGET pair_meet)
  ga_integration_test(fabric_pair_meet fabric_pair_meet.sh TIMEOUT 120)
endif()
# Intermittent faults (issue 33): 1% send loss, 1% receive loss and a link down 0.3 s in
# every 3 s on one of 8 fake hosts, each named alone, and a clean run that passes. One run of
# each here; GA_RUNS=10 for the campaign in docs/performance.md.
ga_integration_test(fabric_intermittent fabric_intermittent.sh TIMEOUT 600 SERIAL)
