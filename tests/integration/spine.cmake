# The spine (issue 2): the whole path from mpirun to a judged report, and its failure modes.
foreach(np 1 2 4)
  ga_integration_test(spine.run_np${np} spine_run.sh ARGS ${np} TIMEOUT 180)
endforeach()
ga_integration_test(spine.hang_rank0 spine_hang.sh ARGS 0 TIMEOUT 180 SERIAL)
ga_integration_test(spine.hang_rank2 spine_hang.sh ARGS 2 TIMEOUT 180 SERIAL)
ga_integration_test(spine.kill_rank2 spine_kill.sh ARGS 2 TIMEOUT 180 SERIAL)
ga_integration_test(spine.kill_rank0 spine_kill.sh ARGS 0 TIMEOUT 180 SERIAL)
ga_integration_test(spine.rejudge spine_rejudge.sh TIMEOUT 180)
ga_integration_test(spine.rejudge_old spine_rejudge_old.sh TIMEOUT 120)
ga_integration_test(spine.bad_input spine_bad_input.sh TIMEOUT 120)
ga_integration_test(spine.cli spine_cli.sh TIMEOUT 120)
# Progress lines on stderr (issue 13 item 7): default, --verbose, --quiet.
ga_integration_test(spine.progress spine_progress.sh TIMEOUT 120)
ga_integration_test(spine.topo_cli spine_topo_cli.sh TIMEOUT 120)
ga_integration_test(spine.expect_topology spine_expect_topology.sh TIMEOUT 180)
ga_integration_test(spine.nompi_build nompi_build.sh TIMEOUT 900 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
ga_integration_test(spine.drain spine_drain.sh TIMEOUT 180)
ga_integration_test(spine.launch spine_launch.sh TIMEOUT 120)
# A re-test campaign (issue 13 item 5): run, rerun-plan, run --rerun twice on 4 fake hosts with
# the fake GPUs, the campaign merged at each step until nothing is left.
ga_integration_test(spine.rerun spine_rerun.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas>)
# Acting on verdicts (issue 31): Xids by catalogue bucket, health's fleet cap, drain's input
# checks, and a re-test that clears and resumes a host only on a passing verdict of what it failed.
ga_integration_test(spine.verdict_actions spine_verdict_actions.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas>)
# Outcome classes that fail closed (issue 32): tool errors and configuration errors never land
# on a node, a contract clause cannot drop out, nothing cut short reads green.
ga_integration_test(spine.outcome_classes spine_outcome_classes.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
# verify, keygen, sign (issue 14 items 1-2): tampering caught, signatures checked by gpuaccept and openssl.
ga_integration_test(spine.verify spine_verify.sh TIMEOUT 120)
# The journal's chain (issue 34 item 1): every edit of a finished journal is exit 2 naming its line.
ga_integration_test(spine.journal_chain spine_journal_chain.sh TIMEOUT 120)
# No secret in any file of a run directory (issue 14 item 7): secret-looking variables exported
# into a real mpirun run, searched for in every file it wrote.
ga_integration_test(spine.secrets spine_secrets.sh TIMEOUT 120
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
# gpuaccept health (issue 13 item 6): one process on the fake GPUs, its exit codes, the files it
# does not write, --drain, its own deadline and the Slurm wrapper.
ga_integration_test(spine.health spine_health.sh TIMEOUT 120
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml>)
# report.html in headless Chromium (issue 14 item 4): the verdict within 1000 px, every plot
# drawn with a size; a screenshot in build/test-output. 77: Chromium not installed.
ga_integration_test(report.browser report_browser.sh TIMEOUT 180 SERIAL)
set_tests_properties(integration.report.browser PROPERTIES SKIP_RETURN_CODE 77)
# System profiles (issue 14 item 6): run, judge and verify --criteria-profile, unknown names.
ga_integration_test(spine.criteria_profile spine_criteria_profile.sh TIMEOUT 60)
