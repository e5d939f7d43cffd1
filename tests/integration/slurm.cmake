ga_integration_test(slurm.srun_resume slurm_srun.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
ga_integration_test(slurm.srun_fake_hosts slurm_srun_fake_hosts.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
ga_integration_test(slurm.sbatch_drain slurm_sbatch_drain.sh TIMEOUT 420 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
