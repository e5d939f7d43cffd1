ga_integration_test(slurm.srun_resume slurm_srun.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
