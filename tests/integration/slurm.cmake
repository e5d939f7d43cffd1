ga_integration_test(slurm.srun_resume slurm_srun.sh TIMEOUT 300 SERIAL)
