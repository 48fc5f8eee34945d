/* cv_ops: every cv_ op on wasm128 against the scalar definition, bit by bit, over special
 * values (signed zeros, infinities, NaNs, subnormals, rounding and int32 boundaries) paired with
 * each other and over random bit patterns. Exit 0 when every lane agrees; else the first
 * differences. (When both operands of add/sub/mul/div are NaN, which payload survives is the
 * compiler's choice: cv.h's one gap, not compared.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>

void cv_ops_scalar(const uint32_t *a, const uint32_t *b, size_t n, uint32_t *out);
void cv_ops_wasm128(const uint32_t *a, const uint32_t *b, size_t n, uint32_t *out);
void cv_anyall_wasm128(const uint32_t *a, const uint32_t *b, size_t n, int *any, int *all);
#define OPS 33
static const char *const names[OPS] = {
    "add", "sub", "mul", "div", "sqrt", "min", "max", "abs", "neg", "round", "floor", "lt", "le", "gt", "ge",
    "eq", "neq", "select", "mandnot", "mxor/mnot/mor", "iadd", "isub", "imul", "iand/ior/ixor/isrl", "isll",
    "isrl31", "ieq", "igt_s", "i2f", "f2i_trunc", "mul+add", "lt mask", "mand"};

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static int is_nan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }

int main(void) {
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -2.5f, 0.49999997f, 8388607.5f, 8388608.0f,
                              -8388609.0f, 16777217.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
                              3.4028235e38f, -3.4028235e38f, 1.17549435e-38f, 1e-45f, -1e-45f, 5.877472e-39f, INFINITY,
                              -INFINITY, NAN, -NAN, 3.14159265f, -1e10f, 1e-10f, 123456.789f, -0.3f};
    uint32_t sp[64];
    size_t ns = 0;
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) sp[ns++] = bits(specials[k]);
    sp[ns++] = 0x7FC00001u; /* a NaN with a payload */
    sp[ns++] = 0xFF800001u; /* a signalling NaN, negative */
    sp[ns++] = 0x00000001u;
    sp[ns++] = 0x80000000u;
    const size_t pairs = ns * ns, randoms = 1u << 16;
    size_t n = (pairs + randoms + 3) / 4 * 4;
    uint32_t *a = calloc(n, 4), *b = calloc(n, 4), *s = calloc(n * OPS, 4), *w = calloc(n * OPS, 4);
    int *any = calloc(n / 4, sizeof *any), *all = calloc(n / 4, sizeof *all);
    if (!a || !b || !s || !w || !any || !all) return 2;
    size_t i = 0;
    for (size_t x = 0; x < ns; x++)
        for (size_t y = 0; y < ns; y++, i++) a[i] = sp[x], b[i] = sp[y];
    uint32_t state = 12345u;
    for (; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        a[i] = state;
        state = state * 1664525u + 1013904223u;
        b[i] = (i & 1) ? state : a[i] ^ (state & 0xFFFu); /* near pairs too */
    }
    cv_ops_scalar(a, b, n, s);
    cv_ops_wasm128(a, b, n, w);
    cv_anyall_wasm128(a, b, n, any, all);
    size_t bad = 0;
    for (int k = 0; k < OPS; k++)
        for (i = 0; i < n; i++) {
            uint32_t x = s[(size_t)k * n + i], y = w[(size_t)k * n + i];
            if (x == y) continue;
            if (k <= 3 && is_nan(a[i]) && is_nan(b[i]) && is_nan(x) && is_nan(y)) continue;
            if (bad++ < 20)
                printf("%s: a=0x%08x b=0x%08x scalar 0x%08x wasm128 0x%08x\n", names[k], a[i], b[i], x, y);
        }
    for (i = 0; i < n; i += 4) {
        int sa = 0, sl = 1;
        for (int j = 0; j < 4; j++) {
            uint32_t m = s[(size_t)31 * n + i + j];
            sa |= m != 0;
            sl &= m != 0;
        }
        if (sa != any[i / 4] || sl != all[i / 4]) {
            if (bad++ < 20) printf("any/all: block %zu scalar %d/%d wasm128 %d/%d\n", i / 4, sa, sl, any[i / 4], all[i / 4]);
        }
    }
    printf("cv_ops: %d ops x %zu lanes (%zu special pairs, %zu random): %zu differences\n", OPS, n, pairs, n - pairs, bad);
    return bad ? 1 : 0;
}
