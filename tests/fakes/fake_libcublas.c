/* A stand-in for libcublas.so, built only for tests: a GEMM that takes a little time and
 * computes nothing (the probe times cuBLAS, it never checks its arithmetic). */
#include <time.h>

static int g_handle;
int cublasCreate_v2(void** h) { *h = &g_handle; return 0; }
int cublasDestroy_v2(void* h) { (void)h; return 0; }
int cublasSetStream_v2(void* h, void* s) { (void)h; (void)s; return 0; }
int cublasGetVersion_v2(void* h, int* v) { (void)h; *v = 120304; return 0; }
int cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* a, int at, int lda,
                 const void* b, int bt, int ldb, const void* beta, void* c, int ct, int ldc, int comp, int algo) {
  (void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)alpha; (void)a; (void)at; (void)lda;
  (void)b; (void)bt; (void)ldb; (void)beta; (void)c; (void)ct; (void)ldc; (void)comp; (void)algo;
  struct timespec t = {0, 200000};
  nanosleep(&t, 0);
  return 0;
}
