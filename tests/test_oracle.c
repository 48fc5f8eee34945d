/* test_oracle.c — the engine against a double-precision oracle of SPEC §1-§4, written from the
 * SPEC's text (not from the kernels), on the SIMD target named by argv[1].
 *
 * The oracle evaluates every formula in double, and alongside each value it carries a bound on
 * how far the engine's float32 evaluation of the same formula may be from it (a running error
 * analysis, type `dv` below). The tolerance of every comparison is therefore derived from float32:
 * each `+ - * /` of the SPEC rounds once, so it adds at most 2^-24 of its result (plus 2^-150 for
 * subnormals) to the error already in its operands; errors propagate through + - * / and sqrt by
 * their first-order bounds; clamps are 1-Lipschitz; sin adds the SPEC's 2^-22 bound (the engine's
 * own sin, |x| <= 2^13). A value is accepted when |engine - oracle| <= 2 * bound (a factor 2 for
 * the second-order terms the bound leaves out and the double rounding of the oracle itself). For
 * parameters this is typically 1e-7 .. 1e-5 of the parameter's range; the test also reports how
 * often the bound exceeds 1e-4 of the range and fails if that is not rare (so the oracle cannot
 * pass by being vague).
 *
 * Discrete decisions (SmoothDamp freeze and overshoot, speed limit, harmonic wrap and clamp
 * branches, blink phase changes) compare two such values; when they are closer than their
 * bounds the float engine may legitimately decide either way. The oracle therefore restarts
 * every tick from the engine's float state (read zero-copy), runs one tick, and compares; an
 * instance whose tick met such an ambiguous decision is skipped for that tick only (counted; the
 * test asserts skips stay below 1%).
 *
 * Random waits: the oracle draws them with engine/random.h's crowdi_draw (the generator is a
 * definition, not under test here), keyed by (seed, instance id) and a draw index that starts at
 * 0 and counts one draw per wait: the first wait at creation (blink present, unless sine with
 * CROWD_BLINK_START_CUBISM), then one per harmonic entry with CROWD_HARMONIC_PHASE_RANDOM, then
 * one per blink that ends.
 *
 * The quirks the SPEC names each get a focused test too: the 1e-5 freeze with its stale
 * velocity, NR write-back and the second clamp fired by rounding alone, the literal multiply,
 * the unclamped closing frame of the timed model.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_support.h"
#include "random.h"

/* ------------------------------------------------------------------------------------------
 * dv: a double value and a bound on the distance of the engine's float32 result from it
 * ---------------------------------------------------------------------------------------- */
typedef struct dv { double v, e; } dv;

static const double ULP_HALF = 0x1p-24; /* unit roundoff of float32 */
static const double SIN_ERR = 0x1p-22;  /* SPEC §0: |sin error| <= 2^-22 for |x| <= 2^13 */

static dv K(float x) { return (dv){x, 0.0}; }

/* The result of one float32 operation whose exact value is (about) v, with propagated error e.
 * When the operands were exact floats and v is a float, the float operation is exact too. */
static dv rounded(double v, double e, bool exact_operands) {
    if (exact_operands && isfinite(v) && (double)(float)v == v) return (dv){v, 0.0};
    return (dv){v, e + fabs(v) * ULP_HALF + 0x1p-150};
}
static dv add(dv a, dv b) { return rounded(a.v + b.v, a.e + b.e, a.e == 0 && b.e == 0); }
static dv sub(dv a, dv b) { return rounded(a.v - b.v, a.e + b.e, a.e == 0 && b.e == 0); }
static dv mul(dv a, dv b) {
    return rounded(a.v * b.v, fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e, a.e == 0 && b.e == 0);
}
static dv dvd(dv a, dv b) {
    double q = a.v / b.v;
    double den = fabs(b.v) - b.e;
    double e = den > 0 ? (a.e + fabs(q) * b.e) / den : INFINITY;
    return rounded(q, e, a.e == 0 && b.e == 0);
}
static dv dsqrt(dv a) {
    double v = sqrt(a.v > 0 ? a.v : 0);
    double e = v > 0 ? fmin(a.e / v, sqrt(a.e)) : sqrt(a.e);
    return rounded(v, e, a.e == 0);
}
static dv dsin(dv a) {
    if (fabs(a.v) + a.e > 8192.0) return (dv){sin(a.v), 2.0};
    return (dv){sin(a.v), a.e + SIN_ERR};
}
static dv dabs(dv a) { return (dv){fabs(a.v), a.e}; }

/* Which decisions were ambiguous, for the report. */
enum { AMB_BLINK, AMB_WRAP, AMB_CLAMP_TIE, AMB_CLAMP_SPLIT, AMB_FREEZE, AMB_SPEED, AMB_OVERSHOOT, AMB_REPEAT, AMB_COUNT };
static const char *const amb_names[AMB_COUNT] = {
    "blink phase (skipped)", "harmonic wrap (skipped)",
    "harmonic clamp tie, outcomes merged (not skipped)", "harmonic clamp tie, outcomes apart (one must match)",
    "look freeze (skipped)", "look speed limit (skipped)", "look overshoot (skipped)", "repeat wrap (skipped)"};
static long amb_counts[AMB_COUNT];
static int amb_kind = AMB_BLINK; /* the decision being made; -1: not counted here */
static bool amb_quiet;           /* reruns of a tick are not counted again */

/* Sign of a - b; sets *amb when the float engine might see the other sign (or equality). */
static int cmp(dv a, dv b, bool *amb) {
    double d = a.v - b.v, m = a.e + b.e;
    if (m > 0 && fabs(d) <= 2.0 * m * (1 + 1e-9) + 1e-300) {
        *amb = true;
        if (amb_kind >= 0 && !amb_quiet) amb_counts[amb_kind]++;
    }
    return d > 0 ? 1 : (d < 0 ? -1 : 0);
}

/* ------------------------------------------------------------------------------------------
 * random rigs
 * ---------------------------------------------------------------------------------------- */
static float logu(rng *r, double lo, double hi) { return (float)exp(log(lo) + (log(hi) - log(lo)) * rng_unit(r)); }

enum { MAXP = 6, MAXL = 4, MAXH = 4, MAXB = 3, MAXC = 4 };

typedef struct orig {
    int P;
    char ids[MAXP][16];
    float min[MAXP], max[MAXP], def[MAXP];
    bool repeat[MAXP];

    bool has_look;
    int look_blend_desc, look_blend, nlook;
    int look_param[MAXL], look_axis[MAXL];
    float look_factor[MAXL], damping, max_speed;

    bool has_harm;
    int harm_blend_desc, harm_blend, nch, nharm;
    float ts[MAXC];
    int h_param[MAXH], h_ch[MAXH], h_dir[MAXH];
    float h_no[MAXH], h_nr[MAXH], h_d[MAXH];

    bool has_blink;
    int blink_model, blink_blend_desc, blink_blend, nblink;
    int b_param[MAXB];
    float mean, dev, tscale;
} orig;

static int pick_blend(rng *r) { return (int)rng_below(r, 4); } /* DEFAULT, OVERRIDE, ADDITIVE, MULTIPLY */
static int resolve(int desc, int fallback) { return desc == CROWD_BLEND_DEFAULT ? fallback : desc; }

static void random_rig(rng *r, orig *o) {
    memset(o, 0, sizeof *o);
    o->P = 1 + (int)rng_below(r, MAXP);
    for (int p = 0; p < o->P; p++) {
        snprintf(o->ids[p], sizeof o->ids[p], "P%d", p);
        double scale = pow(10.0, -2 + 5 * rng_unit(r));
        float min = rng_rangef(r, -scale, scale);
        float size = rng_chance(r, 0.05) ? 0.0f : rng_rangef(r, 0.01 * scale, 2 * scale);
        float max = min + size;
        if (max < min) max = min;
        o->min[p] = min;
        o->max[p] = max;
        o->repeat[p] = max > min && rng_chance(r, 0.25);
        double span = (double)max - min;
        o->def[p] = rng_rangef(r, min - 0.5 * span, max + 0.5 * span);
    }
    if ((o->has_look = rng_chance(r, 0.7))) {
        o->look_blend_desc = pick_blend(r);
        o->look_blend = resolve(o->look_blend_desc, CROWD_BLEND_ADDITIVE);
        o->nlook = (int)rng_below(r, MAXL + 1);
        for (int k = 0; k < o->nlook; k++) {
            o->look_param[k] = (int)rng_below(r, (uint32_t)o->P);
            o->look_axis[k] = (int)rng_below(r, 3);
            o->look_factor[k] = (rng_chance(r, 0.5) ? -1 : 1) * logu(r, 0.1, 100);
        }
        o->damping = rng_chance(r, 0.1) ? 0.0f : rng_rangef(r, 0.01, 1.0);
        o->max_speed = rng_chance(r, 0.6) ? INFINITY : logu(r, 0.1, 30);
    }
    if ((o->has_harm = rng_chance(r, 0.7))) {
        o->harm_blend_desc = pick_blend(r);
        o->harm_blend = resolve(o->harm_blend_desc, CROWD_BLEND_ADDITIVE);
        o->nch = (int)rng_below(r, MAXC + 1);
        for (int c = 0; c < o->nch; c++) o->ts[c] = rng_chance(r, 0.1) ? 0.0f : rng_rangef(r, 0, 3);
        o->nharm = (int)rng_below(r, MAXH + 1);
        for (int k = 0; k < o->nharm; k++) {
            o->h_param[k] = (int)rng_below(r, (uint32_t)o->P);
            o->h_ch[k] = (int)rng_below(r, o->nch ? (uint32_t)o->nch : 1u);
            o->h_dir[k] = (int)rng_below(r, 3);
            o->h_no[k] = rng_chance(r, 0.85) ? rng_rangef(r, 0, 1) : rng_rangef(r, -0.5, 1.5);
            o->h_nr[k] = rng_chance(r, 0.85) ? rng_rangef(r, 0, 1) : rng_rangef(r, 0, 1.5);
            o->h_d[k] = logu(r, 0.05, 10);
        }
    }
    if ((o->has_blink = rng_chance(r, 0.7))) {
        o->blink_model = (int)rng_below(r, 2);
        o->blink_blend_desc = pick_blend(r);
        o->blink_blend = resolve(o->blink_blend_desc, CROWD_BLEND_MULTIPLY);
        o->nblink = (int)rng_below(r, MAXB + 1);
        for (int k = 0; k < o->nblink; k++) o->b_param[k] = (int)rng_below(r, (uint32_t)o->P);
        o->mean = rng_rangef(r, 0, 5);
        o->dev = rng_rangef(r, 0, 3);
        o->tscale = logu(r, 0.5, 30);
    }
}

static void describe(const orig *o, char *buf, size_t n) {
    size_t k = 0;
#define PUT(...) k += (size_t)snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__)
    for (int p = 0; p < o->P; p++)
        PUT("%s[%.9g,%.9g]%s def %.9g; ", o->ids[p], (double)o->min[p], (double)o->max[p], o->repeat[p] ? " repeat" : "",
            (double)o->def[p]);
    if (o->has_look) {
        PUT("look blend %d damping %.9g max_speed %.9g:", o->look_blend, (double)o->damping, (double)o->max_speed);
        for (int j = 0; j < o->nlook; j++) PUT(" P%d.%c*%.9g", o->look_param[j], "xyz"[o->look_axis[j]], (double)o->look_factor[j]);
        PUT("; ");
    }
    if (o->has_harm) {
        PUT("harmonic blend %d ts", o->harm_blend);
        for (int c = 0; c < o->nch; c++) PUT(" %.9g", (double)o->ts[c]);
        for (int j = 0; j < o->nharm; j++)
            PUT(" | P%d ch%d dir%d NO %.9g NR %.9g D %.9g", o->h_param[j], o->h_ch[j], o->h_dir[j], (double)o->h_no[j],
                (double)o->h_nr[j], (double)o->h_d[j]);
        PUT("; ");
    }
    if (o->has_blink) {
        PUT("blink model %d blend %d mean %.9g dev %.9g ts %.9g:", o->blink_model, o->blink_blend, (double)o->mean,
            (double)o->dev, (double)o->tscale);
        for (int j = 0; j < o->nblink; j++) PUT(" P%d", o->b_param[j]);
    }
#undef PUT
}

static crowd_rig create_rig(crowd_engine *e, const orig *o) {
    crowd_parameter_desc pd[MAXP];
    for (int p = 0; p < o->P; p++) pd[p] = (crowd_parameter_desc){o->ids[p], o->min[p], o->max[p], o->def[p], o->repeat[p]};
    crowd_look_parameter_desc lp[MAXL];
    crowd_look_desc look = crowd_look_defaults();
    for (int k = 0; k < o->nlook; k++) lp[k] = (crowd_look_parameter_desc){o->ids[o->look_param[k]], (crowd_axis)o->look_axis[k], o->look_factor[k]};
    look.parameters = lp;
    look.parameter_count = (uint32_t)o->nlook;
    look.damping = o->damping;
    look.max_speed = o->max_speed;
    look.blend = (crowd_blend)o->look_blend_desc;
    crowd_harmonic_parameter_desc hp[MAXH];
    for (int k = 0; k < o->nharm; k++)
        hp[k] = (crowd_harmonic_parameter_desc){o->ids[o->h_param[k]], (uint32_t)o->h_ch[k], (crowd_direction)o->h_dir[k],
                                                o->h_no[k], o->h_nr[k], o->h_d[k]};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = (uint32_t)o->nharm;
    harm.channel_timescales = o->nch ? o->ts : NULL;
    harm.channel_count = (uint32_t)o->nch;
    harm.blend = (crowd_blend)o->harm_blend_desc;
    const char *bids[MAXB];
    for (int k = 0; k < o->nblink; k++) bids[k] = o->ids[o->b_param[k]];
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = bids;
    blink.parameter_count = (uint32_t)o->nblink;
    blink.model = (crowd_blink_model)o->blink_model;
    blink.blend = (crowd_blend)o->blink_blend_desc;
    blink.mean = o->mean;
    blink.max_deviation = o->dev;
    blink.timescale = o->tscale;
    crowd_rig_desc rd = {.name = "random", .parameters = pd, .parameter_count = (uint32_t)o->P,
                         .look = o->has_look ? &look : NULL, .harmonic = o->has_harm ? &harm : NULL,
                         .blink = o->has_blink ? &blink : NULL};
    crowd_rig rig = {0};
    crowd_result res = crowd_rig_create(e, &rd, &rig);
    if (res != CROWD_OK) FAILF("crowd_rig_create: %s", crowd_last_error(e));
    return rig;
}

/* ------------------------------------------------------------------------------------------
 * the oracle: one tick of one instance, SPEC §1-§4, in double with error bounds
 * ---------------------------------------------------------------------------------------- */
typedef struct istate { /* an instance's inputs and state as the engine holds them (floats) */
    float base[MAXP];
    float pos[3], vel[3], target[3], center[3], active, damping, lweight;
    float T[MAXH], NR[MAXH], hweight;
    float bclock, bphase, blast, bopen, bmanual, bweight;
} istate;

typedef struct oresult {
    dv out[MAXP];
    dv pos[3], vel[3];
    dv T[MAXH], NR[MAXH];
    dv NRc[MAXH][8]; /* every NR the SPEC permits when a clamp decision is a rounding tie */
    int nNR[MAXH];
    dv bclock, bopen, blast;
    float bphase;
    bool amb;  /* an ambiguous decision: skip this instance this tick */
    unsigned split; /* harmonic entries whose clamp tie has outcomes apart: rerun forced */
    bool drew; /* a wait was drawn */
} oresult;

/* C(x) of SPEC §1. Non-repeat: 1-Lipschitz, so the bound passes through (and is 0 when the
 * value is certainly clamped). Repeat: the bound passes through modulo the size; the
 * comparison is then made on the circle. */
static dv clampC(const orig *o, int p, dv x, bool *amb) {
    double min = o->min[p], max = o->max[p];
    if (!o->repeat[p]) {
        if (x.v - x.e > max) return K(o->max[p]);
        if (x.v + x.e < min) return K(o->min[p]);
        return (dv){x.v < min ? min : (x.v > max ? max : x.v), x.e};
    }
    double size = (double)(o->max[p] - o->min[p]); /* the SPEC's float32 size */
    /* a value within its bound of a wrap point may wrap in float and not in double (or the
     * reverse): the result is then the same point of the circle, but a later blend that scales
     * it (override, multiply) would tell the two apart */
    if (x.e > 0 && (fabs(x.v - max) <= 2 * x.e || fabs(x.v - min) <= 2 * x.e)) {
        *amb = true;
        if (!amb_quiet) amb_counts[AMB_REPEAT]++;
    }
    if (x.v > max) {
        dv d = sub(x, K(o->max[p]));
        double r = fmod(d.v, size);
        x = rounded(min + r, d.e, false);
    }
    if (x.v < min) {
        dv d = sub(K(o->min[p]), x);
        double r = fmod(d.v, size);
        x = rounded(max - r, d.e, false);
    }
    return x;
}

static dv blend(const orig *o, int mode, int p, dv P, dv v, float w, bool *amb) {
    dv W = K(w), one = K(1.0f), r;
    if (mode == CROWD_BLEND_OVERRIDE) r = add(mul(P, sub(one, W)), mul(v, W));
    else if (mode == CROWD_BLEND_ADDITIVE) r = add(P, mul(v, W));
    else r = mul(P, add(one, mul(sub(v, one), W))); /* literally */
    return clampC(o, p, r, amb);
}

static dv next_wait(const orig *o, uint32_t key, uint32_t draw) {
    float u = crowdi_draw(key, draw);
    return sub(add(K(o->mean), mul(K(u), K(2.0f * o->dev))), K(o->dev));
}

static void oracle_blink(const orig *o, const istate *s, float dt, uint32_t key, uint32_t draws, oresult *r, dv *eye) {
    r->bclock = K(s->bclock);
    r->bphase = s->bphase;
    r->blast = K(s->blast);
    r->bopen = K(s->bopen);
    if (s->bmanual >= 0) { /* manual: eye_opening is the caller's, the automatic state waits */
        r->bopen = K(s->bmanual);
        *eye = r->bopen;
        return;
    }
    bool *amb = &r->amb;
    amb_kind = AMB_BLINK;
    if (o->blink_model == CROWD_BLINK_SINE) {
        dv T = K(s->bclock), last = K(s->blast);
        float phase = s->bphase;
        if (phase == 0) {
            T = sub(T, K(dt));
            if (cmp(T, K(0), amb) < 0) {
                T = K(-1.5707964f);
                last = K(1);
                phase = 1;
            } else {
                r->bclock = T;
                *eye = r->bopen; /* unchanged */
                return;
            }
        }
        dv step = mul(K(dt), K(o->tscale));
        dv value;
        if (step.v == 0 && step.e == 0 && s->bphase != 0) {
            /* dt*timescale is 0: T is unchanged since the last tick, which stored
             * last = |sin(T)| of this very T; the same float computation gives the same value */
            value = K(s->blast);
        } else {
            T = add(T, step);
            value = dabs(dsin(T));
        }
        if (phase == 1 && cmp(value, last, amb) > 0) {
            phase = 2;
        } else if (phase == 2 && cmp(value, last, amb) < 0) {
            value = K(1);
            phase = 0;
            T = next_wait(o, key, draws);
            r->drew = true;
        }
        r->bclock = T;
        r->bphase = phase;
        r->bopen = value;
        r->blast = value;
        *eye = value;
        return;
    }
    /* timed */
    float phase = s->bphase;
    dv out;
    if (phase == 0) {
        dv next = sub(K(s->bclock), K(dt));
        if (cmp(next, K(0), amb) < 0) {
            r->bphase = 1;
            r->bclock = K(0);
        } else {
            r->bclock = next;
        }
        out = K(1);
    } else {
        dv u = add(K(s->bclock), mul(K(dt), K(o->tscale)));
        r->bclock = u;
        if (phase == 1) {
            dv t = dvd(u, K(1.0f));
            if (cmp(t, K(1), amb) >= 0) r->bphase = 2, r->bclock = K(0);
            out = sub(K(1), t); /* not clamped: the blend clamps */
        } else if (phase == 2) {
            dv t = dvd(u, K(0.5f));
            if (cmp(t, K(1), amb) >= 0) r->bphase = 3, r->bclock = K(0);
            out = K(0);
        } else {
            dv t = dvd(u, K(1.5f));
            if (cmp(t, K(1), amb) >= 0) {
                t = K(1);
                r->bphase = 0;
                r->bclock = next_wait(o, key, draws);
                r->drew = true;
            }
            out = t;
        }
    }
    r->bopen = out;
    *eye = out;
}

/* The clamp branches of SPEC §3 for one entry, along one path: decision k (0 the direction
 * branch, 1 the second clamp's "below", 2 its "above") follows the double evaluation unless it
 * is ambiguous, in which case bit k of `choice` decides. Ambiguous decisions are reported in
 * *ambiguous (bit k). */
typedef struct hcand { dv origin, range, NR; } hcand;

static bool harm_decide(int sign, bool want_positive_or_zero_kind, int kind, unsigned choice, int k, bool amb,
                        unsigned *ambiguous) {
    (void)kind;
    bool natural = want_positive_or_zero_kind ? sign >= 0 : sign < 0;
    if (!amb) return natural;
    *ambiguous |= 1u << k;
    return (choice >> k) & 1u;
}

static hcand harm_path(const orig *o, int h, float NR0, unsigned choice, unsigned *ambiguous) {
    int p = o->h_param[h];
    dv min = K(o->min[p]), max = K(o->max[p]);
    dv VR = sub(max, min);
    dv NR = K(NR0);
    dv origin = add(min, mul(K(o->h_no[h]), VR));
    dv range = mul(NR, VR);
    dv two = K(2.0f);
    bool amb = false;
    if (o->h_dir[h] == CROWD_DIRECTION_LEFT) {
        int c = cmp(sub(origin, range), min, &amb);                    /* origin - range >= min */
        if (harm_decide(c, true, 0, choice, 0, amb, ambiguous)) {
            range = dvd(range, two);
            origin = sub(origin, range);
        } else {
            range = dvd(sub(origin, min), two);
            origin = add(min, range);
            NR = dvd(mul(range, two), VR);
        }
    } else if (o->h_dir[h] == CROWD_DIRECTION_RIGHT) {
        int c = cmp(max, add(origin, range), &amb);                    /* origin + range <= max */
        if (harm_decide(c, true, 0, choice, 0, amb, ambiguous)) {
            range = dvd(range, two);
            origin = add(origin, range);
        } else {
            range = dvd(sub(max, origin), two);
            origin = sub(max, range);
            NR = dvd(mul(range, two), VR);
        }
    }
    amb = false;
    int below = cmp(sub(origin, range), min, &amb);                    /* origin - range < min */
    if (harm_decide(below, false, 1, choice, 1, amb, ambiguous)) {
        range = sub(origin, min);
        NR = dvd(range, VR);
    } else {
        amb = false;
        int above = cmp(max, add(origin, range), &amb);                /* origin + range > max */
        if (harm_decide(above, false, 2, choice, 2, amb, ambiguous)) {
            range = sub(max, origin);
            NR = dvd(range, VR);
        }
    }
    return (hcand){origin, range, NR};
}

static void oracle_harmonic(const orig *o, const istate *s, float dt, const int *force, oresult *r) {
    bool *amb = &r->amb;
    for (int h = 0; h < o->nharm; h++) {
        int p = o->h_param[h];
        float ts = o->nch ? o->ts[o->h_ch[h]] : 1.0f;
        dv D = K(o->h_d[h]);
        dv T = add(K(s->T[h]), mul(K(dt), K(ts)));
        amb_kind = AMB_WRAP;
        for (int guard = 0; cmp(T, D, amb) > 0; guard++) {
            if (guard > 100000) FAILF("oracle: harmonic wrap does not end");
            T = sub(T, D);
        }
        dv sine = dsin(dvd(mul(T, K(6.2831855f)), D));
        /* The clamp decisions are often exact ties (after any clamp the band touches the bound,
         * in real arithmetic, on every later tick), so the float engine may take either side.
         * Origin and range are continuous across these branches; NR is not (the second clamp
         * after a halving writes back half the NR: the SPEC's quirk). So every path through the
         * ambiguous decisions is a permitted outcome: the value is their merge (its bound
         * covers all of them) and the engine's NR must equal one of theirs. */
        unsigned ambiguous = 0;
        amb_kind = -1;
        bool forced = force && force[h] >= 0;
        hcand primary = harm_path(o, h, s->NR[h], forced ? (unsigned)force[h] : 0u, &ambiguous);
        if (forced) ambiguous = 0; /* this run follows one permitted path exactly */
        /* the double decisions themselves: re-run with the natural choice for each bit */
        dv value = add(primary.origin, mul(primary.range, sine));
        r->nNR[h] = 0;
        r->NRc[h][r->nNR[h]++] = primary.NR;
        if (ambiguous) {
            /* A tie whose outcomes are apart (e.g. centric, "below" a tie while "above" is
             * certain: range = origin - min or max - origin) is a genuine rounding-decided
             * discontinuity of the SPEC: skipped like the other thresholds. */
            double v0 = value.v, e = value.e;
            bool apart = false;
            for (unsigned choice = 1; choice < 8; choice++) {
                unsigned amb2 = 0;
                hcand c = harm_path(o, h, s->NR[h], choice, &amb2);
                dv vc = add(c.origin, mul(c.range, sine));
                if (fabs(vc.v - v0) > 2.0 * (vc.e + value.e) + 1e-300) apart = true;
                e = fmax(e, fabs(vc.v - v0) + vc.e);
                if (r->nNR[h] < 8) r->NRc[h][r->nNR[h]++] = c.NR;
            }
            value.e = e;
            if (!amb_quiet) amb_counts[apart ? AMB_CLAMP_SPLIT : AMB_CLAMP_TIE]++;
            if (apart) r->split |= 1u << h;
        }
        r->T[h] = T;
        r->NR[h] = primary.NR;
        r->out[p] = blend(o, o->harm_blend, p, r->out[p], value, s->hweight, amb);
    }
}

static void oracle_look(const orig *o, const istate *s, float dt, oresult *r) {
    bool *amb = &r->amb;
    dv cur[3], vel[3], goal[3];
    for (int a = 0; a < 3; a++) {
        cur[a] = K(s->pos[a]);
        vel[a] = K(s->vel[a]);
        goal[a] = s->active > 0 ? sub(K(s->target[a]), K(s->center[a])) : K(0);
    }
    dv d[3];
    for (int a = 0; a < 3; a++) d[a] = sub(cur[a], goal[a]);
    dv dist2 = add(add(mul(d[0], d[0]), mul(d[1], d[1])), mul(d[2], d[2]));
    const float threshold = 1e-5f * 1e-5f;
    amb_kind = AMB_FREEZE;
    for (int a = 0; a < 3; a++) r->pos[a] = cur[a], r->vel[a] = vel[a];
    if (cmp(dist2, K(threshold), amb) >= 0) {
        /* Unity's SmoothDamp, SPEC §2 */
        dv st = K(s->damping > 0.0001f ? s->damping : 0.0001f);
        dv omega = dvd(K(2), st);
        dv x = mul(omega, K(dt));
        dv e = dvd(K(1), add(add(add(K(1), x), mul(mul(K(0.48f), x), x)), mul(mul(mul(K(0.235f), x), x), x)));
        dv ch[3], orig_[3];
        for (int a = 0; a < 3; a++) ch[a] = sub(cur[a], goal[a]), orig_[a] = goal[a];
        if (isfinite(o->max_speed)) {
            dv maxC = mul(K(o->max_speed), st);
            dv sum = add(add(mul(ch[0], ch[0]), mul(ch[1], ch[1])), mul(ch[2], ch[2]));
            amb_kind = AMB_SPEED;
            if (cmp(sum, mul(maxC, maxC), amb) > 0) {
                dv mag = dsqrt(sum);
                for (int a = 0; a < 3; a++) ch[a] = mul(dvd(ch[a], mag), maxC);
            }
        }
        dv out[3], nvel[3];
        for (int a = 0; a < 3; a++) {
            dv tgt = sub(cur[a], ch[a]);
            dv temp = mul(add(vel[a], mul(omega, ch[a])), K(dt));
            nvel[a] = mul(sub(vel[a], mul(omega, temp)), e);
            out[a] = add(tgt, mul(add(ch[a], temp), e));
        }
        dv dot = add(add(mul(sub(orig_[0], cur[0]), sub(out[0], orig_[0])), mul(sub(orig_[1], cur[1]), sub(out[1], orig_[1]))),
                     mul(sub(orig_[2], cur[2]), sub(out[2], orig_[2])));
        amb_kind = AMB_OVERSHOOT;
        if (cmp(dot, K(0), amb) > 0)
            for (int a = 0; a < 3; a++) out[a] = orig_[a], nvel[a] = K(0);
        for (int a = 0; a < 3; a++) r->pos[a] = out[a], r->vel[a] = nvel[a];
    }
    for (int k = 0; k < o->nlook; k++) {
        int p = o->look_param[k];
        r->out[p] = blend(o, o->look_blend, p, r->out[p], mul(r->pos[o->look_axis[k]], K(o->look_factor[k])), s->lweight, amb);
    }
}

static void oracle_tick(const orig *o, const istate *s, float dt, uint32_t key, uint32_t draws, const int *force,
                        oresult *r) {
    memset(r, 0, sizeof *r);
    for (int p = 0; p < o->P; p++) r->out[p] = K(s->base[p]);
    if (o->has_blink) {
        dv eye;
        oracle_blink(o, s, dt, key, draws, r, &eye);
        for (int k = 0; k < o->nblink; k++) {
            int p = o->b_param[k];
            r->out[p] = blend(o, o->blink_blend, p, r->out[p], eye, s->bweight, &r->amb);
        }
    }
    if (o->has_harm) oracle_harmonic(o, s, dt, force, r);
    if (o->has_look) oracle_look(o, s, dt, r);
}

/* ------------------------------------------------------------------------------------------
 * the engine's columns of a rig (zero-copy)
 * ---------------------------------------------------------------------------------------- */
typedef struct cols {
    float *base[MAXP], *out[MAXP];
    float *pos[3], *vel[3], *target[3], *center[3], *active, *damping, *lweight;
    float *T[MAXH], *NR[MAXH], *hweight;
    float *bclock, *bphase, *blast, *bopen, *bmanual, *bweight;
} cols;

static float *column(crowd_engine *e, crowd_rig rig, crowd_field f, uint32_t index, uint32_t comp) {
    float *p = NULL;
    uint32_t n;
    OK(e, crowd_rig_column(e, rig, f, index, comp, &p, &n));
    return p;
}

static void get_cols(crowd_engine *e, crowd_rig rig, const orig *o, cols *c) {
    memset(c, 0, sizeof *c);
    for (int p = 0; p < o->P; p++) {
        c->base[p] = column(e, rig, CROWD_FIELD_BASE, (uint32_t)p, 0);
        c->out[p] = column(e, rig, CROWD_FIELD_OUTPUT, (uint32_t)p, 0);
    }
    if (o->has_look) {
        for (uint32_t a = 0; a < 3; a++) {
            c->pos[a] = column(e, rig, CROWD_FIELD_LOOK_POSITION, 0, a);
            c->vel[a] = column(e, rig, CROWD_FIELD_LOOK_VELOCITY, 0, a);
            c->target[a] = column(e, rig, CROWD_FIELD_LOOK_TARGET, 0, a);
            c->center[a] = column(e, rig, CROWD_FIELD_LOOK_CENTER, 0, a);
        }
        c->active = column(e, rig, CROWD_FIELD_LOOK_ACTIVE, 0, 0);
        c->damping = column(e, rig, CROWD_FIELD_LOOK_DAMPING, 0, 0);
        c->lweight = column(e, rig, CROWD_FIELD_LOOK_WEIGHT, 0, 0);
    }
    if (o->has_harm) {
        for (int h = 0; h < o->nharm; h++) {
            c->T[h] = column(e, rig, CROWD_FIELD_HARMONIC_PHASE, (uint32_t)h, 0);
            c->NR[h] = column(e, rig, CROWD_FIELD_HARMONIC_RANGE, (uint32_t)h, 0);
        }
        c->hweight = column(e, rig, CROWD_FIELD_HARMONIC_WEIGHT, 0, 0);
    }
    if (o->has_blink) {
        c->bclock = column(e, rig, CROWD_FIELD_BLINK_CLOCK, 0, 0);
        c->bphase = column(e, rig, CROWD_FIELD_BLINK_PHASE, 0, 0);
        c->blast = column(e, rig, CROWD_FIELD_BLINK_LAST, 0, 0);
        c->bopen = column(e, rig, CROWD_FIELD_BLINK_OPENING, 0, 0);
        c->bmanual = column(e, rig, CROWD_FIELD_BLINK_MANUAL, 0, 0);
        c->bweight = column(e, rig, CROWD_FIELD_BLINK_WEIGHT, 0, 0);
    }
}

static void read_state(const orig *o, const cols *c, uint32_t i, istate *s) {
    memset(s, 0, sizeof *s);
    for (int p = 0; p < o->P; p++) s->base[p] = c->base[p][i];
    if (o->has_look) {
        for (int a = 0; a < 3; a++) {
            s->pos[a] = c->pos[a][i];
            s->vel[a] = c->vel[a][i];
            s->target[a] = c->target[a][i];
            s->center[a] = c->center[a][i];
        }
        s->active = c->active[i];
        s->damping = c->damping[i];
        s->lweight = c->lweight[i];
    }
    if (o->has_harm) {
        for (int h = 0; h < o->nharm; h++) s->T[h] = c->T[h][i], s->NR[h] = c->NR[h][i];
        s->hweight = c->hweight[i];
    }
    if (o->has_blink) {
        s->bclock = c->bclock[i];
        s->bphase = c->bphase[i];
        s->blast = c->blast[i];
        s->bopen = c->bopen[i];
        s->bmanual = c->bmanual[i];
        s->bweight = c->bweight[i];
    }
}

/* ------------------------------------------------------------------------------------------
 * the comparison
 * ---------------------------------------------------------------------------------------- */
typedef struct stats {
    long instance_ticks, skipped, split_ticks, compared_values, loose;
    double worst_ratio; /* max |engine - oracle| / tolerance */
    int failures;
    char first_failure[2048];
} stats;

/* Compares one engine float with the oracle; `size` > 0 compares on a circle of that size.
 * Returns true on a mismatch; records it (and the statistics) unless st is NULL. */
static bool check(stats *st, double scale, float got, dv want, double size, const char *fmt, ...) {
    double diff = fabs((double)got - want.v);
    if (size > 0 && diff > size / 2) diff = fabs(size - fmod(diff, size));
    double tol = 2.0 * want.e * (1 + 1e-9) + 1e-300;
    bool bad = !(diff <= tol) || isnan(got);
    if (!st) return bad;
    st->compared_values++;
    if (scale > 0 && tol > 1e-4 * scale) st->loose++;
    if (!bad && tol > 0 && diff / tol > st->worst_ratio) st->worst_ratio = diff / tol;
    if (bad && st->failures++ == 0) {
        char what[512];
        va_list args;
        va_start(args, fmt);
        vsnprintf(what, sizeof what, fmt, args);
        va_end(args);
        snprintf(st->first_failure, sizeof st->first_failure, "%s: engine %.9g (0x%08x), oracle %.12g +- %.3g (off by %.3g)",
                 what, (double)got, fbits(got), want.v, tol, diff);
    }
    return bad;
}

/* Everything the tick changed, engine against oracle; returns the number of mismatches. */
static int compare_instance(stats *st, const orig *o, const cols *c, uint32_t i, const istate *s, const oresult *w,
                            bool drew, int rig_no, int t, float dt) {
    int bad = 0;
    for (int p = 0; p < o->P; p++) {
        double span = (double)o->max[p] - o->min[p];
        bad += check(st, span, c->out[p][i], w->out[p], o->repeat[p] ? (double)(o->max[p] - o->min[p]) : 0,
                     "rig %d tick %d (dt %.9g) instance %u output P%d", rig_no, t, (double)dt, i, p);
    }
    if (o->has_look)
        for (int a = 0; a < 3; a++) {
            bad += check(st, 0, c->pos[a][i], w->pos[a], 0, "rig %d tick %d (dt %.9g) instance %u look pos[%d]", rig_no, t, (double)dt, i, a);
            bad += check(st, 0, c->vel[a][i], w->vel[a], 0, "rig %d tick %d (dt %.9g) instance %u look vel[%d]", rig_no, t, (double)dt, i, a);
        }
    if (o->has_harm)
        for (int h = 0; h < o->nharm; h++) {
            bad += check(st, o->h_d[h], c->T[h][i], w->T[h], 0, "rig %d tick %d (dt %.9g) instance %u harmonic T[%d]", rig_no, t, (double)dt, i, h);
            int match = -1;
            for (int k = 0; k < w->nNR[h] && match < 0; k++)
                if (!check(NULL, 0, c->NR[h][i], w->NRc[h][k], 0, "")) match = k;
            bad += check(st, 0, c->NR[h][i], w->NRc[h][match < 0 ? 0 : match], 0,
                         "rig %d tick %d (dt %.9g) instance %u harmonic NR[%d] (%d permitted outcomes)", rig_no, t, (double)dt, i, h,
                         w->nNR[h]);
        }
    if (o->has_blink) {
        bad += check(st, 0, c->bclock[i], w->bclock, 0, "rig %d tick %d (dt %.9g) instance %u blink clock (phase %g -> %g)", rig_no, t,
                     (double)dt, i, (double)s->bphase, (double)w->bphase);
        bad += check(st, 0, c->bopen[i], w->bopen, 0, "rig %d tick %d (dt %.9g) instance %u blink opening", rig_no, t, (double)dt, i);
        if (o->blink_model == CROWD_BLINK_SINE)
            bad += check(st, 0, c->blast[i], w->blast, 0, "rig %d tick %d (dt %.9g) instance %u blink last", rig_no, t, (double)dt, i);
        if (c->bphase[i] != w->bphase) {
            bad++;
            if (st && st->failures++ == 0)
                snprintf(st->first_failure, sizeof st->first_failure, "rig %d tick %d (dt %.9g) instance %u: blink phase %g -> %g, oracle %g",
                         rig_no, t, (double)dt, i, (double)s->bphase, (double)c->bphase[i], (double)w->bphase);
        }
        if (drew != w->drew) {
            bad++;
            if (st && st->failures++ == 0)
                snprintf(st->first_failure, sizeof st->first_failure, "rig %d tick %d instance %u: engine drew %d, oracle %d", rig_no, t,
                         i, drew, w->drew);
        }
    }
    return bad;
}

/* ------------------------------------------------------------------------------------------
 * random inputs
 * ---------------------------------------------------------------------------------------- */
static float weight(rng *r) {
    double u = rng_unit(r);
    return u < 0.4 ? 1.0f : (u < 0.5 ? 0.0f : rng_rangef(r, 0, 1));
}

static void random_inputs(crowd_engine *e, rng *r, const orig *o, const crowd_instance *h, uint32_t n, double pick) {
    for (uint32_t i = 0; i < n; i++) {
        if (!rng_chance(r, pick)) continue;
        for (int p = 0; p < o->P; p++) {
            double span = (double)o->max[p] - o->min[p], wide = o->repeat[p] ? 3 * span : 0.5 * span;
            float v = rng_rangef(r, o->min[p] - wide, o->max[p] + wide);
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BASE, (uint32_t)p, &v));
        }
        if (o->has_look) {
            double scale = pow(10.0, -2 + 3 * rng_unit(r));
            float t[3] = {rng_rangef(r, -scale, scale), rng_rangef(r, -scale, scale), rng_rangef(r, -scale, scale)};
            OK(e, crowd_set_look_target(e, h[i], t[0], t[1], t[2], rng_chance(r, 0.7)));
            float c[3] = {rng_rangef(r, -0.1, 0.1), rng_rangef(r, -0.1, 0.1), rng_rangef(r, -0.1, 0.1)};
            if (rng_chance(r, 0.5)) c[0] = c[1] = c[2] = 0;
            OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_CENTER, 0, c));
            if (rng_chance(r, 0.3)) {
                float d = rng_chance(r, 0.1) ? 0.0f : rng_rangef(r, 0, 1);
                OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_DAMPING, 0, &d));
            }
            float w = weight(r);
            OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_WEIGHT, 0, &w));
            if (rng_chance(r, 0.1)) {
                /* stage a state at the goal, a hair off, with a stale velocity (the freeze) */
                float goal[3];
                OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_TARGET, 0, goal));
                float active;
                OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_ACTIVE, 0, &active));
                float pos[3], vel[3];
                for (int a = 0; a < 3; a++) {
                    pos[a] = (active > 0 ? goal[a] - c[a] : 0.0f) + rng_rangef(r, -8e-6, 8e-6);
                    vel[a] = rng_rangef(r, -1e-3, 1e-3);
                }
                OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, pos));
                OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_VELOCITY, 0, vel));
            }
        }
        if (o->has_harm) {
            float w = weight(r);
            OK(e, crowd_set(e, h[i], CROWD_FIELD_HARMONIC_WEIGHT, 0, &w));
        }
        if (o->has_blink) {
            float w = weight(r);
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BLINK_WEIGHT, 0, &w));
            float m = rng_chance(r, 0.85) ? -1.0f : (rng_chance(r, 0.2) ? (float)rng_below(r, 2) : rng_rangef(r, 0, 1));
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BLINK_MANUAL, 0, &m));
            if (rng_chance(r, 0.05)) OK(e, crowd_blink_now(e, &h[i], 1));
        }
    }
}

static float random_dt(rng *r) {
    double u = rng_unit(r);
    if (u < 0.08) return 0.0f;
    if (u < 0.13) return 1.0f;
    if (u < 0.15) return nextafterf(1.0f, 0.0f);
    if (u < 0.17) return 1e-7f;
    if (u < 0.57) return 1.0f / 60.0f;
    if (u < 0.67) return 1.0f / 30.0f;
    if (u < 0.87) return rng_rangef(r, 0, 0.1);
    return rng_rangef(r, 0, 1);
}

/* ------------------------------------------------------------------------------------------
 * the random test
 * ---------------------------------------------------------------------------------------- */
enum { MAXN = 24 };

/* The state right after creation: the first wait is draw 0 (blink present, unless sine with
 * CROWD_BLINK_START_CUBISM, which starts at T = 0), then one phase per harmonic entry with
 * CROWD_HARMONIC_PHASE_RANDOM: T = u * D. Returns the draw count used. */
static uint32_t check_initial(const orig *o, const cols *c, uint32_t i, uint32_t key, crowd_blink_start bs,
                              crowd_harmonic_phase hp, stats *st, int rig_no) {
    uint32_t draws = 0;
    if (o->has_blink) {
        float want = 0.0f;
        if (!(bs == CROWD_BLINK_START_CUBISM && o->blink_model == CROWD_BLINK_SINE)) {
            volatile float u = crowdi_draw(key, draws++), t = u * (2.0f * o->dev), s = o->mean + t;
            want = s - o->dev;
        }
        if (fbits(c->bclock[i]) != fbits(want) || c->bphase[i] != 0 || c->bopen[i] != 1.0f || c->blast[i] != 1.0f) {
            if (st->failures++ == 0)
                snprintf(st->first_failure, sizeof st->first_failure,
                         "rig %d instance %u: initial blink clock %.9g phase %g opening %g last %g, want clock %.9g (draw %u) phase 0 opening 1 last 1",
                         rig_no, i, (double)c->bclock[i], (double)c->bphase[i], (double)c->bopen[i], (double)c->blast[i],
                         (double)want, draws ? draws - 1 : 0);
        }
    }
    if (o->has_harm)
        for (int h = 0; h < o->nharm; h++) {
            volatile float want = 0.0f;
            if (hp == CROWD_HARMONIC_PHASE_RANDOM) {
                volatile float u = crowdi_draw(key, draws++);
                want = u * o->h_d[h];
            }
            if (fbits(c->T[h][i]) != fbits(want) || fbits(c->NR[h][i]) != fbits(o->h_nr[h])) {
                if (st->failures++ == 0)
                    snprintf(st->first_failure, sizeof st->first_failure,
                             "rig %d instance %u entry %d: initial T %.9g NR %.9g, want %.9g and %.9g", rig_no, i, h,
                             (double)c->T[h][i], (double)c->NR[h][i], (double)want, (double)o->h_nr[h]);
            }
        }
    return draws;
}

static void run_random_rig(int rig_no, uint64_t seed, int ticks, stats *st) {
    rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
    orig o;
    random_rig(&r, &o);
    const uint64_t engine_seed = rng_next(&r);
    crowd_engine *e = crowd_test_engine(engine_seed);
    crowd_rig rig = create_rig(e, &o);
    uint32_t n1 = 1 + rng_below(&r, MAXN / 2), n2 = rng_below(&r, MAXN / 2 + 1), n = n1 + n2;
    crowd_blink_start bs[2] = {(crowd_blink_start)rng_below(&r, 2), (crowd_blink_start)rng_below(&r, 2)};
    crowd_harmonic_phase hp[2] = {(crowd_harmonic_phase)rng_below(&r, 2), (crowd_harmonic_phase)rng_below(&r, 2)};
    crowd_instance h[MAXN];
    crowd_add_desc ad = {.rig = rig, .count = n1, .blink_start = bs[0], .harmonic_phase = hp[0]};
    OK(e, crowd_instances_add(e, &ad, h));
    ad = (crowd_add_desc){.rig = rig, .count = n2, .blink_start = bs[1], .harmonic_phase = hp[1]};
    OK(e, crowd_instances_add(e, &ad, h + n1));
    cols c;
    get_cols(e, rig, &o, &c);
    uint32_t key[MAXN], draws[MAXN];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id;
        uint32_t row;
        OK(e, crowd_instance_info(e, h[i], &id, NULL, &row));
        if (row != i) FAILF("rows are not in the order of adding");
        key[i] = crowdi_instance_key(engine_seed, id);
        draws[i] = check_initial(&o, &c, i, key[i], bs[i >= n1], hp[i >= n1], st, rig_no);
    }
    random_inputs(e, &r, &o, h, n, 1.0);

    char desc[2048] = "";
    int failures_before = st->failures;
    for (int t = 0; t < ticks; t++) {
        if (t > 0 && rng_chance(&r, 0.15)) random_inputs(e, &r, &o, h, n, 0.2);
        float dt = random_dt(&r);
        istate s[MAXN];
        oresult want[MAXN];
        for (uint32_t i = 0; i < n; i++) {
            read_state(&o, &c, i, &s[i]);
            oracle_tick(&o, &s[i], dt, key[i], draws[i], NULL, &want[i]);
        }
        OK(e, crowd_tick(e, dt));
        for (uint32_t i = 0; i < n; i++) {
            st->instance_ticks++;
            /* the engine drew a wait when a blink ended */
            bool drew = o.has_blink && s[i].bmanual < 0 && s[i].bphase != 0 && c.bphase[i] == 0;
            draws[i] += drew;
            const oresult *w = &want[i];
            oresult alt;
            if (!w->amb && w->split) {
                /* set-valued: one complete run per permitted path of the split entries (up to
                 * two entries); the engine must match one of them entirely */
                int entries[MAXH], ne = 0;
                for (int hh = 0; hh < o.nharm; hh++)
                    if (w->split & (1u << hh)) entries[ne++] = hh;
                bool matched = false;
                if (ne <= 2) {
                    st->split_ticks++;
                    amb_quiet = true;
                    for (unsigned combo = 0; combo < (ne == 1 ? 8u : 64u) && !matched; combo++) {
                        int force[MAXH] = {-1, -1, -1, -1};
                        force[entries[0]] = (int)(combo & 7u);
                        if (ne == 2) force[entries[1]] = (int)(combo >> 3);
                        oracle_tick(&o, &s[i], dt, key[i], draws[i] - drew, force, &alt);
                        if (!alt.amb && compare_instance(NULL, &o, &c, i, &s[i], &alt, drew, rig_no, t, dt) == 0) matched = true;
                    }
                    amb_quiet = false;
                    if (matched) w = &alt;
                } else {
                    alt = *w;
                    alt.amb = true;
                    w = &alt;
                }
            }
            if (w->amb) {
                st->skipped++;
                continue;
            }
            if (compare_instance(st, &o, &c, i, &s[i], w, drew, rig_no, t, dt)) break;
        }
        if (st->failures > failures_before) {
            describe(&o, desc, sizeof desc);
            size_t len = strlen(st->first_failure);
            snprintf(st->first_failure + len, sizeof st->first_failure - len, "\n  rig: %s", desc);
            break;
        }
    }
    crowd_engine_destroy(e);
}

#if defined(__SANITIZE_ADDRESS__)
enum { RANDOM_RIGS = 1000 };
#else
enum { RANDOM_RIGS = 2000 };
#endif

static void test_oracle_random_rigs(void **state) {
    (void)state;
    stats st = {0};
    for (int k = 0; k < RANDOM_RIGS && st.failures == 0; k++) run_random_rig(k, 1000 + (uint64_t)k, 200, &st);
    printf("oracle on %s: %d rigs, %ld instance-ticks, %ld skipped near a threshold (%.3f%%), %ld with a harmonic clamp "
           "tie whose outcomes are apart, %ld values compared, %ld with a tolerance above 1e-4 of their scale (%.3f%%), "
           "worst |diff|/tolerance %.3f\n",
           crowd_simd_name(crowd_test_simd), RANDOM_RIGS, st.instance_ticks, st.skipped,
           100.0 * (double)st.skipped / (double)(st.instance_ticks ? st.instance_ticks : 1), st.split_ticks, st.compared_values, st.loose,
           100.0 * (double)st.loose / (double)(st.compared_values ? st.compared_values : 1), st.worst_ratio);
    for (int k = 0; k < AMB_COUNT; k++) printf("  ambiguous %s: %ld\n", amb_names[k], amb_counts[k]);
    if (st.failures) FAILF("%d disagreements with the oracle; the first:\n  %s", st.failures, st.first_failure);
    if (st.skipped * 100 >= st.instance_ticks) FAILF("too many skipped instance-ticks: %ld of %ld", st.skipped, st.instance_ticks);
    if (st.loose * 100 >= st.compared_values) FAILF("the oracle's tolerance is loose too often: %ld of %ld", st.loose, st.compared_values);
}

/* ------------------------------------------------------------------------------------------
 * the quirks
 * ---------------------------------------------------------------------------------------- */
enum { NQ = 37 }; /* two 16-lane blocks and a tail: the target's kernel and the tail path */

static crowd_engine *one_param_rig(uint64_t seed, const crowd_parameter_desc *p, const crowd_look_desc *look,
                                   const crowd_harmonic_desc *harm, const crowd_blink_desc *blink, crowd_rig *rig,
                                   crowd_instance *h, crowd_blink_start bs) {
    crowd_engine *e = crowd_test_engine(seed);
    crowd_rig_desc rd = {.name = "quirk", .parameters = p, .parameter_count = 1, .look = look, .harmonic = harm, .blink = blink};
    OK(e, crowd_rig_create(e, &rd, rig));
    crowd_add_desc ad = {.rig = *rig, .count = NQ, .blink_start = bs};
    OK(e, crowd_instances_add(e, &ad, h));
    return e;
}

/* SPEC §2: below a squared distance of 1e-5f*1e-5f SmoothDamp is not called at all: pos stays a
 * hair short of the goal and vel keeps its last (stale, nonzero) value, tick after tick. */
static void test_quirk_freeze(void **state) {
    (void)state;
    crowd_parameter_desc p = {"X", -1000, 1000, 0, false};
    crowd_look_parameter_desc lp = {"X", CROWD_AXIS_X, 1000};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = &lp;
    look.parameter_count = 1;
    crowd_rig rig;
    crowd_instance h[NQ];
    crowd_engine *e = one_param_rig(1, &p, &look, NULL, NULL, &rig, h, CROWD_BLINK_START_RANDOM);
    rng r = {5};
    float pos0[NQ][3], vel0[NQ][3];
    for (int i = 0; i < NQ; i++) {
        OK(e, crowd_set_look_target(e, h[i], 0.5f, -0.25f, 2.0f, true));
        /* inside: distance up to ~0.55e-5 (squared < 1e-10); every fourth one outside */
        float off = i % 4 == 3 ? 1.2e-5f : 0.3e-5f;
        float pos[3] = {0.5f + rng_rangef(&r, -off, off), -0.25f + rng_rangef(&r, -off, off), 2.0f + (i % 4 == 3 ? off : 0)};
        float vel[3] = {rng_rangef(&r, -1, 1), rng_rangef(&r, -1, 1), rng_rangef(&r, -1, 1)};
        OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, pos));
        OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_VELOCITY, 0, vel));
        memcpy(pos0[i], pos, sizeof pos);
        memcpy(vel0[i], vel, sizeof vel);
    }
    for (int k = 0; k < 50; k++) {
        OK(e, crowd_tick(e, 1.0f / 60.0f));
        for (int i = 0; i < NQ; i++) {
            float pos[3], vel[3], out;
            OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, pos));
            OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_VELOCITY, 0, vel));
            OK(e, crowd_get(e, h[i], CROWD_FIELD_OUTPUT, 0, &out));
            volatile float d0 = pos0[i][0] - 0.5f, d1 = pos0[i][1] - -0.25f, d2 = pos0[i][2] - 2.0f;
            volatile float dist2 = d0 * d0 + d1 * d1;
            dist2 = dist2 + d2 * d2;
            bool frozen = dist2 < 1e-5f * 1e-5f;
            if (i % 4 != 3) assert_true(frozen);
            if (frozen) {
                if (memcmp(pos, pos0[i], sizeof pos) != 0 || memcmp(vel, vel0[i], sizeof vel) != 0)
                    FAILF("tick %d instance %d: frozen state moved (pos.x %.9g -> %.9g, vel.x %.9g -> %.9g)", k, i,
                          (double)pos0[i][0], (double)pos[0], (double)vel0[i][0], (double)vel[0]);
                volatile float v = pos[0] * 1000.0f, want = 0.0f + v * 1.0f;
                if (fbits(out) != fbits(want)) FAILF("tick %d instance %d: output %.9g, want %.9g", k, i, (double)out, (double)want);
            } else if (k == 0 && memcmp(pos, pos0[i], sizeof pos) == 0) {
                FAILF("instance %d: just outside the threshold, but the state did not move", i);
            }
        }
    }
    crowd_engine_destroy(e);
}

/* The harmonic clamps in float, as SPEC §3 writes them: the reference for one entry. */
typedef struct fharm { float origin, range, NR; bool second; } fharm;
static fharm float_harmonic(int dir, float min, float max, float NO, float NR) {
    volatile float VR = max - min, t = NO * VR;
    volatile float origin = min + t, range = NR * VR;
    fharm out = {0, 0, NR, false};
    volatile float x;
    if (dir == CROWD_DIRECTION_LEFT) {
        x = origin - range;
        if (x >= min) {
            range = range / 2;
            origin = origin - range;
        } else {
            x = origin - min;
            range = x / 2;
            origin = min + range;
            x = range * 2;
            out.NR = x / VR;
        }
    } else if (dir == CROWD_DIRECTION_RIGHT) {
        x = origin + range;
        if (x <= max) {
            range = range / 2;
            origin = origin + range;
        } else {
            x = max - origin;
            range = x / 2;
            origin = max - range;
            x = range * 2;
            out.NR = x / VR;
        }
    }
    volatile float lo = origin - range, hi = origin + range;
    if (lo < min) {
        range = origin - min;
        out.NR = range / VR;
        out.second = true;
    } else if (hi > max) {
        range = max - origin;
        out.NR = range / VR;
        out.second = true;
    }
    out.origin = origin;
    out.range = range;
    return out;
}

/* SPEC §3: for left/right the second clamp can fire through float rounding alone (in real
 * arithmetic the first branch leaves origin - range == min exactly), and then NR is written
 * back, halving the band once more from the next tick on. Find such a case, and check the engine
 * reproduces it; the double oracle sees the first tick's decision as ambiguous. */
static void test_quirk_second_clamp_by_rounding(void **state) {
    (void)state;
    for (int dir = CROWD_DIRECTION_LEFT; dir <= CROWD_DIRECTION_RIGHT; dir++) {
        rng r = {77 + (uint64_t)dir};
        float min = 0, max = 0, NO = 0, NR = 0;
        fharm f1 = {0};
        bool found = false;
        for (int tries = 0; tries < 1000000 && !found; tries++) {
            min = rng_rangef(&r, -50, 50);
            max = min + rng_rangef(&r, 0.1, 100);
            NO = rng_rangef(&r, 0.05, 0.95);
            NR = dir == CROWD_DIRECTION_LEFT ? NO : 1.0f - NO; /* the band touches the bound in reals */
            fharm f = float_harmonic(dir, min, max, NO, NR);
            /* the first branch "fits" in float, yet the second clamp fires */
            volatile float VR = max - min, t = NO * VR, origin = min + t, range = NR * VR;
            volatile float edge = dir == CROWD_DIRECTION_LEFT ? origin - range : origin + range;
            bool fits = dir == CROWD_DIRECTION_LEFT ? edge >= min : edge <= max;
            if (fits && f.second && f.NR != NR) f1 = f, found = true;
        }
        if (!found) FAILF("direction %d: no rounding-triggered second clamp found to test", dir);
        crowd_parameter_desc p = {"B", min, max, 0, false};
        crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("B");
        hp.direction = (crowd_direction)dir;
        hp.origin = NO;
        hp.range = NR;
        crowd_harmonic_desc hd = crowd_harmonic_defaults();
        hd.parameters = &hp;
        hd.parameter_count = 1;
        crowd_rig rig;
        crowd_instance h[NQ];
        crowd_engine *e = one_param_rig(2, &p, NULL, &hd, NULL, &rig, h, CROWD_BLINK_START_RANDOM);
        /* tick 1 (dt 0, T 0): the second clamp writes NR back */
        OK(e, crowd_tick(e, 0.0f));
        fharm f2 = float_harmonic(dir, min, max, NO, f1.NR);
        for (int i = 0; i < NQ; i++) {
            float got;
            OK(e, crowd_get(e, h[i], CROWD_FIELD_HARMONIC_RANGE, 0, &got));
            if (fbits(got) != fbits(f1.NR))
                FAILF("direction %d [%.9g, %.9g] NO %.9g NR %.9g: tick 1 NR %.9g, SPEC's float formulas give %.9g", dir,
                      (double)min, (double)max, (double)NO, (double)NR, (double)got, (double)f1.NR);
            OK(e, crowd_get(e, h[i], CROWD_FIELD_OUTPUT, 0, &got));
            float want = 0.0f + f1.origin; /* T = 0: value = origin + range*sin(0), additive onto 0 */
            if (fabs((double)got - want) > 4e-7 * fabs((double)f1.range) + 1e-6 * fabs((double)want))
                FAILF("direction %d: tick 1 value %.9g, want %.9g", dir, (double)got, (double)want);
        }
        /* the oracle in double: the first branch ends exactly on the bound, so the second clamp
         * is a tie; the oracle permits both outcomes for NR (kept, or halved), and the engine's is
         * one of them */
        {
            orig o = {.P = 1, .has_harm = true, .harm_blend = CROWD_BLEND_ADDITIVE, .nharm = 1};
            o.min[0] = min, o.max[0] = max, o.h_dir[0] = dir, o.h_no[0] = NO, o.h_nr[0] = NR, o.h_d[0] = 3;
            istate s = {.hweight = 1};
            s.NR[0] = NR;
            oresult res;
            oracle_tick(&o, &s, 0.0f, 0, 0, NULL, &res);
            bool kept = false, halved = false;
            for (int k = 0; k < res.nNR[0]; k++) {
                if (!check(NULL, 0, NR, res.NRc[0][k], 0, "")) kept = true;
                if (!check(NULL, 0, f1.NR, res.NRc[0][k], 0, "")) halved = true;
            }
            if (res.amb || !kept || !halved)
                FAILF("direction %d: the oracle should permit NR %.9g and %.9g (amb %d, %d outcomes)", dir, (double)NR,
                      (double)f1.NR, res.amb, res.nNR[0]);
            if (!(fabs((double)f1.NR / NR - 0.5) < 0.01)) FAILF("direction %d: the second clamp should halve NR", dir);
        }
        /* tick 2 onward: the band is half of the first tick's (NR halved) */
        OK(e, crowd_tick(e, 0.0f));
        for (int i = 0; i < NQ; i++) {
            float got;
            OK(e, crowd_get(e, h[i], CROWD_FIELD_HARMONIC_RANGE, 0, &got));
            if (fbits(got) != fbits(f2.NR)) FAILF("direction %d: tick 2 NR %.9g, want %.9g", dir, (double)got, (double)f2.NR);
        }
        double ratio = (double)f2.range / (double)f1.range;
        if (!(ratio > 0.49 && ratio < 0.51)) FAILF("direction %d: the band did not halve (%.9g -> %.9g)", dir, (double)f1.range, (double)f2.range);
        /* the band on tick 2, seen through the value at T = D/4 and 3D/4 */
        float top, bottom;
        for (int i = 0; i < NQ; i++) {
            float T = 0.75f;
            OK(e, crowd_set(e, h[i], CROWD_FIELD_HARMONIC_PHASE, 0, &T));
        }
        OK(e, crowd_tick(e, 0.0f));
        OK(e, crowd_get(e, h[NQ - 1], CROWD_FIELD_OUTPUT, 0, &top));
        for (int i = 0; i < NQ; i++) {
            float T = 2.25f;
            OK(e, crowd_set(e, h[i], CROWD_FIELD_HARMONIC_PHASE, 0, &T));
        }
        OK(e, crowd_tick(e, 0.0f));
        OK(e, crowd_get(e, h[NQ - 1], CROWD_FIELD_OUTPUT, 0, &bottom));
        fharm f3 = float_harmonic(dir, min, max, NO, f2.NR), f4 = float_harmonic(dir, min, max, NO, f3.NR);
        double tol = 1e-6 * (fabs((double)min) + fabs((double)max)) + SIN_ERR * 2 * fabs((double)f3.range);
        if (fabs((double)top - ((double)f3.origin + f3.range)) > tol || fabs((double)bottom - ((double)f4.origin - f4.range)) > tol)
            FAILF("direction %d: band [%.9g, %.9g], want [%.9g, %.9g]", dir, (double)bottom, (double)top,
                  (double)(f4.origin - f4.range), (double)(f3.origin + f3.range));
        crowd_engine_destroy(e);
    }
}

/* SPEC §1: multiply is P*(1 + (v - 1)*w) evaluated literally. */
static void test_quirk_literal_multiply(void **state) {
    (void)state;
    rng r = {9};
    for (int c = 0; c < 20; c++) {
        /* find P, v, w where the literal form differs from P*(v*w + (1 - w)) and from P*v */
        float P = 0, v = 0, w = 0, literal = 0;
        for (int tries = 0; tries < 100000; tries++) {
            P = rng_rangef(&r, 0.5, 9.5);
            v = rng_rangef(&r, 0, 0.5);
            w = c % 2 ? 1.0f : rng_rangef(&r, 0.5, 1);
            volatile float a = v - 1.0f, b = a * w, s = 1.0f + b;
            literal = P * s;
            volatile float alt1 = P * v, t = v * w, alt2s = t + (1.0f - w), alt2 = P * alt2s;
            if (literal != (w == 1.0f ? alt1 : alt2) && literal >= -10 && literal <= 10) break;
        }
        crowd_parameter_desc p = {"M", -10, 10, 0, false};
        const char *ids[] = {"M"};
        crowd_blink_desc bd = crowd_blink_defaults();
        bd.parameters = ids;
        bd.parameter_count = 1;
        crowd_rig rig;
        crowd_instance h[NQ];
        crowd_engine *e = one_param_rig(3, &p, NULL, NULL, &bd, &rig, h, CROWD_BLINK_START_RANDOM);
        for (int i = 0; i < NQ; i++) {
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BASE, 0, &P));
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BLINK_MANUAL, 0, &v));
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BLINK_WEIGHT, 0, &w));
        }
        OK(e, crowd_tick(e, 1.0f / 60.0f));
        for (int i = 0; i < NQ; i++) {
            float got;
            OK(e, crowd_get(e, h[i], CROWD_FIELD_OUTPUT, 0, &got));
            if (fbits(got) != fbits(literal))
                FAILF("case %d: P %.9g v %.9g w %.9g: engine %.9g, literal %.9g", c, (double)P, (double)v, (double)w, (double)got,
                      (double)literal);
        }
        /* and the double oracle accepts it (the difference is within float rounding) */
        orig o = {.P = 1, .has_blink = true, .blink_blend = CROWD_BLEND_MULTIPLY, .nblink = 1};
        o.min[0] = -10, o.max[0] = 10;
        istate s = {.bmanual = v, .bweight = w};
        s.base[0] = P;
        oresult res;
        oracle_tick(&o, &s, 1.0f / 60.0f, 0, 0, NULL, &res);
        if (!(fabs((double)literal - res.out[0].v) <= 2 * res.out[0].e)) FAILF("case %d: the oracle rejects the literal value", c);
        crowd_engine_destroy(e);
    }
}

/* SPEC §4 timed: on the frame closing completes, out = 1 - t with t >= 1 is stored unclamped;
 * only the blend's C() clamps it. dt 0.03 at timescale 10: u = 0.3, 0.6, 0.9, 1.2. */
static void test_quirk_timed_unclamped_closing(void **state) {
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        /* variant 0: override onto [-1, 1] shows the negative value; 1: multiply onto [0, 1] clamps */
        crowd_parameter_desc p = {"E", variant == 0 ? -1.0f : 0.0f, 1, 1, false};
        const char *ids[] = {"E"};
        crowd_blink_desc bd = crowd_blink_defaults();
        bd.parameters = ids;
        bd.parameter_count = 1;
        bd.model = CROWD_BLINK_TIMED;
        bd.blend = variant == 0 ? CROWD_BLEND_OVERRIDE : CROWD_BLEND_MULTIPLY;
        crowd_rig rig;
        crowd_instance h[NQ];
        crowd_engine *e = one_param_rig(4, &p, NULL, NULL, &bd, &rig, h, CROWD_BLINK_START_RANDOM);
        for (int i = 0; i < NQ; i++) {
            float z = 0;
            OK(e, crowd_set(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0, &z));
        }
        const float dt = 0.03f;
        OK(e, crowd_tick(e, dt)); /* idle -> closing */
        volatile float u = 0, step = dt * 10.0f, t = 0;
        for (int k = 2; k <= 5; k++) {
            OK(e, crowd_tick(e, dt));
            u = u + step;
            t = u / 1.0f;
            volatile float want_open = 1.0f - t;
            for (int i = 0; i < NQ; i++) {
                float open, phase, out;
                OK(e, crowd_get(e, h[i], CROWD_FIELD_BLINK_OPENING, 0, &open));
                OK(e, crowd_get(e, h[i], CROWD_FIELD_BLINK_PHASE, 0, &phase));
                OK(e, crowd_get(e, h[i], CROWD_FIELD_OUTPUT, 0, &out));
                if (fbits(open) != fbits(want_open)) FAILF("variant %d tick %d: eye_opening %.9g, want %.9g", variant, k, (double)open, (double)want_open);
                if (k == 5) {
                    assert_true(want_open < -0.1f);
                    assert_true(phase == 2.0f);
                    float want_out = variant == 0 ? want_open : 0.0f;
                    if (fbits(out) != fbits(want_out)) FAILF("variant %d closing frame: output %.9g, want %.9g", variant, (double)out, (double)want_out);
                }
            }
        }
        crowd_engine_destroy(e);
    }
}

/* The draw sequence: first wait, then harmonic phases, then one per ended blink; a host's
 * crowd_instance_random has a stream of its own (crowdi_host_key) that leaves these alone. */
static void test_draw_sequence(void **state) {
    (void)state;
    const uint64_t seed = 0x1234567890abcdefull;
    crowd_engine *e = crowd_test_engine(seed);
    crowd_parameter_desc p[2] = {{"A", 0, 1, 1, false}, {"B", -1, 1, 0, false}};
    crowd_harmonic_parameter_desc hp[3] = {crowd_harmonic_parameter_defaults("B"), crowd_harmonic_parameter_defaults("B"),
                                           crowd_harmonic_parameter_defaults("B")};
    hp[1].duration = 1.5f;
    hp[2].duration = 7.25f;
    crowd_harmonic_desc hd = crowd_harmonic_defaults();
    hd.parameters = hp;
    hd.parameter_count = 3;
    const char *ids[] = {"A"};
    crowd_blink_desc bd = crowd_blink_defaults();
    bd.parameters = ids;
    bd.parameter_count = 1;
    crowd_rig_desc rd = {.name = "draws", .parameters = p, .parameter_count = 2, .harmonic = &hd, .blink = &bd};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    crowd_instance handles[4][NQ];
    uint32_t keys[4][NQ], draws_after_add[4][NQ];
    for (int variant = 0; variant < 4; variant++) {
        crowd_blink_start bs = variant & 1 ? CROWD_BLINK_START_CUBISM : CROWD_BLINK_START_RANDOM;
        crowd_harmonic_phase ph = variant & 2 ? CROWD_HARMONIC_PHASE_RANDOM : CROWD_HARMONIC_PHASE_ZERO;
        crowd_instance h[NQ];
        crowd_add_desc ad = {.rig = rig, .count = NQ, .blink_start = bs, .harmonic_phase = ph};
        OK(e, crowd_instances_add(e, &ad, h));
        for (int i = 0; i < NQ; i++) {
            uint64_t id;
            OK(e, crowd_instance_info(e, h[i], &id, NULL, NULL));
            uint32_t key = crowdi_instance_key(seed, id), d = 0;
            float clock;
            OK(e, crowd_get(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0, &clock));
            volatile float want = 0;
            if (bs == CROWD_BLINK_START_RANDOM) {
                volatile float u = crowdi_draw(key, d++), t = u * 4.0f, s = 2.5f + t;
                want = s - 2.0f;
            }
            if (fbits(clock) != fbits(want)) FAILF("variant %d instance %d: first wait %.9g, want %.9g", variant, i, (double)clock, (double)want);
            for (uint32_t k = 0; k < 3; k++) {
                float T;
                OK(e, crowd_get(e, h[i], CROWD_FIELD_HARMONIC_PHASE, k, &T));
                volatile float wantT = 0;
                if (ph == CROWD_HARMONIC_PHASE_RANDOM) {
                    volatile float u = crowdi_draw(key, d++);
                    wantT = u * hp[k].duration;
                }
                if (fbits(T) != fbits(wantT)) FAILF("variant %d instance %d entry %u: T %.9g, want %.9g", variant, i, k, (double)T, (double)wantT);
                if (!(T >= 0 && T < hp[k].duration)) FAILF("T outside [0, D)");
            }
            /* the host's stream is its own (crowdi_host_key), counted from 0 */
            uint32_t hkey = crowdi_host_key(key);
            for (uint32_t j = 0; j < 4; j += 2) {
                float u2[2];
                OK(e, crowd_instance_random(e, h[i], 2, u2));
                if (fbits(u2[0]) != fbits(crowdi_draw(hkey, j)) || fbits(u2[1]) != fbits(crowdi_draw(hkey, j + 1)))
                    FAILF("variant %d instance %d: crowd_instance_random gives %.9g %.9g, host stream draws %u, %u are %.9g %.9g",
                          variant, i, (double)u2[0], (double)u2[1], j, j + 1, (double)crowdi_draw(hkey, j), (double)crowdi_draw(hkey, j + 1));
            }
            draws_after_add[variant][i] = d;
            keys[variant][i] = key;
        }
        memcpy(handles[variant], h, sizeof h);
    }
    /* host draws do not disturb the engine's: the next blink's wait is still draw d */
    for (int variant = 0; variant < 4; variant++) {
        for (int i = 0; i < NQ; i++) {
            float zero = 0, idle = 0;
            OK(e, crowd_set(e, handles[variant][i], CROWD_FIELD_BLINK_PHASE, 0, &idle));
            OK(e, crowd_set(e, handles[variant][i], CROWD_FIELD_BLINK_CLOCK, 0, &zero));
        }
    }
    bool ended[4][NQ] = {{false}};
    for (int k = 0; k < 60; k++) { /* a sine blink at timescale 10 takes ~20 ticks */
        OK(e, crowd_tick(e, 1.0f / 60.0f));
        for (int variant = 0; variant < 4; variant++)
            for (int i = 0; i < NQ; i++) {
                float clock, phase;
                OK(e, crowd_get(e, handles[variant][i], CROWD_FIELD_BLINK_PHASE, 0, &phase));
                if (ended[variant][i] || phase != 0.0f || k == 0) continue;
                ended[variant][i] = true;
                OK(e, crowd_get(e, handles[variant][i], CROWD_FIELD_BLINK_CLOCK, 0, &clock));
                volatile float u = crowdi_draw(keys[variant][i], draws_after_add[variant][i]), t = u * 4.0f, s2 = 2.5f + t;
                volatile float w = s2 - 2.0f;
                if (fbits(clock) != fbits(w))
                    FAILF("variant %d instance %d: the wait after the blink is %.9g, draw %u gives %.9g", variant, i, (double)clock,
                          draws_after_add[variant][i], (double)w);
            }
    }
    for (int variant = 0; variant < 4; variant++)
        for (int i = 0; i < NQ; i++)
            if (!ended[variant][i]) FAILF("variant %d instance %d: the blink did not end within 60 ticks", variant, i);
    crowd_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest quirks[] = {
        cmocka_unit_test(test_draw_sequence),
        cmocka_unit_test(test_quirk_freeze),
        cmocka_unit_test(test_quirk_second_clamp_by_rounding),
        cmocka_unit_test(test_quirk_literal_multiply),
        cmocka_unit_test(test_quirk_timed_unclamped_closing),
    };
    const struct CMUnitTest oracle[] = {
        cmocka_unit_test(test_oracle_random_rigs),
    };
    double t0 = crowd_test_seconds();
    int failed = cmocka_run_group_tests_name("quirks", quirks, NULL, NULL);
    failed += cmocka_run_group_tests_name("oracle", oracle, NULL, NULL);
    printf("test_oracle on %s: %.2f s\n", crowd_simd_name(crowd_test_simd), crowd_test_seconds() - t0);
    fflush(stdout);
    return failed ? 1 : 0;
}
