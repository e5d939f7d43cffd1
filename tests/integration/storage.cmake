# storage and resume probes: this host (4 ranks) and fake hosts (one rank each), clean and
# with faults injected through test hooks (docs/storage.md, docs/resume.md).
foreach(mode clean torn both)
  ga_integration_test(storage.local_${mode} storage_resume.sh ARGS local ${mode} TIMEOUT 240)
endforeach()
foreach(mode clean blind torn corrupt)
  ga_integration_test(storage.fake_hosts_${mode} storage_resume.sh ARGS fake ${mode} TIMEOUT 240 SERIAL)
endforeach()
