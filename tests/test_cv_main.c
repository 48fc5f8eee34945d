/* test_cv_main.c — main() for test_cv_<target>, compiled without target flags so it can
 * check the CPU before any target code runs. Usage: test_cv_<target> <target name>.
 * Exit 77 (ctest's skip code) when the CPU lacks the target. */
#include <stdio.h>
#include <string.h>

int crowd_test_cv_run(void);

static int cpu_has(const char *target) {
  if (!strcmp(target, "scalar")) return 1;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (!strcmp(target, "sse2")) return __builtin_cpu_supports("sse2");
  if (!strcmp(target, "avx2")) return __builtin_cpu_supports("avx2");
  if (!strcmp(target, "avx512"))
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
#else
  if (!strcmp(target, "sse2")) return 1; /* SIMDe emulates it (NEON or plain C) */
#endif
  return 0;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"scalar", "sse2", "avx2", "avx512"};
  const char *target = argc > 1 ? argv[1] : NULL;
  int ok = 0;
  for (size_t i = 0; target && i < sizeof known / sizeof known[0]; i++) ok |= !strcmp(target, known[i]);
  if (!ok) {
    fprintf(stderr, "usage: %s scalar|sse2|avx2|avx512\n", argv[0]);
    return 2;
  }
  if (!cpu_has(target)) {
    printf("skipped: CPU lacks %s\n", target);
    return 77;
  }
  return crowd_test_cv_run();
}
