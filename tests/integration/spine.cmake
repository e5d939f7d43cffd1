# The spine (issue 2): the whole path from mpirun to a judged report, and its failure modes.
foreach(np 1 2 4)
  ga_integration_test(spine.run_np${np} spine_run.sh ARGS ${np} TIMEOUT 180)
endforeach()
ga_integration_test(spine.hang_rank0 spine_hang.sh ARGS 0 TIMEOUT 180 SERIAL)
ga_integration_test(spine.hang_rank2 spine_hang.sh ARGS 2 TIMEOUT 180 SERIAL)
ga_integration_test(spine.kill_rank2 spine_kill.sh ARGS 2 TIMEOUT 180 SERIAL)
ga_integration_test(spine.kill_rank0 spine_kill.sh ARGS 0 TIMEOUT 180 SERIAL)
ga_integration_test(spine.rejudge spine_rejudge.sh TIMEOUT 180)
ga_integration_test(spine.bad_input spine_bad_input.sh TIMEOUT 120)
ga_integration_test(spine.topo_cli spine_topo_cli.sh TIMEOUT 120)
ga_integration_test(spine.expect_topology spine_expect_topology.sh TIMEOUT 180)
ga_integration_test(spine.nompi_build nompi_build.sh TIMEOUT 900 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
