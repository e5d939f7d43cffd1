// Nothing secret is recorded (base/redact.hpp): which names look secret, the environment's
// allow-list, and argv redaction.
#include <gtest/gtest.h>

#include "base/redact.hpp"

using namespace ga::base;

TEST(Redact, NamesThatLookSecret) {
  for (const char* n : {"GITHUB_TOKEN", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "MYPASSWORD", "SSH_AUTH_SOCK",
                        "API_KEY", "OPENAI_APIKEY", "NCCL_SECRET", "pass", "--token", "storage.api_token", "X-Auth",
                        "GOOGLE_APPLICATION_CREDENTIALS", "session", "user.pwd"})
    EXPECT_TRUE(looks_secret(n)) << n;
  for (const char* n : {"NCCL_IB_PKEY", "NCCL_IB_HCA", "NCCL_DEBUG", "UCX_TLS", "OMPI_MCA_btl", "CUDA_VISIBLE_DEVICES",
                        "SLURM_JOB_ID", "PATH", "--suite", "--out", "p2p.passes", "KEYBOARD", "monkey", "--sign"})
    EXPECT_FALSE(looks_secret(n)) << n;
}

TEST(Redact, EnvironmentByAllowListAndNeverASecret) {
  std::string a = "NCCL_DEBUG=INFO", b = "NCCL_SECRET=hunter2", c = "HOME=/root", d = "NCCL_IB_PKEY=0x8001",
              e = "GITHUB_TOKEN=ghp_x";
  char* env[] = {a.data(), b.data(), c.data(), d.data(), e.data(), nullptr};
  EXPECT_EQ(allowed_environment(env, {"NCCL_"}), (std::vector<std::string>{"NCCL_DEBUG=INFO", "NCCL_IB_PKEY=0x8001"}));
  EXPECT_TRUE(allowed_environment(env, {}).empty());
}

TEST(Redact, ArgvValuesOfSecretFlagsAndKeys) {
  const std::vector<std::string> in = {"gpuaccept", "run",          "--token",   "abc123",     "--api-key=xyz",
                                       "--set",     "storage.api_token=s3cr3t", "--out",     "/tmp/run",
                                       "--password", "--suite",     "quick",     "-x",         "MY_SECRET=v"};
  const std::vector<std::string> want = {"gpuaccept", "run",          "--token",   "<redacted>", "--api-key=<redacted>",
                                         "--set",     "storage.api_token=<redacted>", "--out", "/tmp/run",
                                         "--password", "--suite",     "quick",     "-x",         "MY_SECRET=<redacted>"};
  EXPECT_EQ(redact_argv(in), want);  // a secret flag followed by another flag hides nothing of it
  const std::vector<std::string> plain = {"gpuaccept", "--suite", "default", "--sign", "me.key", "--set", "hostmem.iterations=3"};
  EXPECT_EQ(redact_argv(plain), plain);
}
