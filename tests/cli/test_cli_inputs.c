/* test_cli_inputs.c — every class of bad input of SPEC §6 and §7 through the crowd command:
 * exit status 2 and one "crowd: " line on stderr naming the file and the field (path) or the
 * line and column; no trace left behind. Also bad usage, and the good base files accepted.
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"

/* A scene using every section, laid out so that line numbers are known: line 1 is "{". */
static const char base_scene[] =
    "{\n"                                                                               /* 1 */
    "  \"seed\": 3, \"dt\": 0.0166666675, \"frames\": 5,\n"                             /* 2 */
    "  \"rigs\": [{\n"                                                                  /* 3 */
    "    \"name\": \"face\",\n"                                                         /* 4 */
    "    \"parameters\": [{\"id\": \"ParamAngleX\", \"min\": -30, \"max\": 30, \"default\": 0, \"repeat\": false},\n"
    "                   {\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1},\n"
    "                   {\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
    "    \"look\": {\"damping\": 0.15, \"max_speed\": null, \"blend\": \"additive\",\n"
    "             \"parameters\": [{\"id\": \"ParamAngleX\", \"axis\": \"x\", \"factor\": 30}]},\n"
    "    \"harmonic\": {\"blend\": \"additive\", \"channel_timescales\": [1],\n"
    "                 \"parameters\": [{\"id\": \"ParamBreath\", \"channel\": 0, \"direction\": \"centric\",\n"
    "                                 \"origin\": 0.5, \"range\": 0.5, \"duration\": 3}]},\n"
    "    \"blink\": {\"model\": \"sine\", \"blend\": \"multiply\", \"parameters\": [\"ParamEyeLOpen\"],\n"
    "              \"mean\": 2.5, \"max_deviation\": 2, \"timescale\": 10}\n"
    "  }, {\n"
    "    \"name\": \"body\",\n"
    "    \"limbs\": {\"frame\": \"engine\", \"axis_fix\": \"y_along_bone\", \"fallback\": \"root\",\n"
    "              \"visibility_threshold\": 0.5, \"smoothing\": \"off\"}\n"
    "  }],\n"
    "  \"groups\": [{\n"
    "    \"rig\": \"face\", \"count\": 3,\n"
    "    \"look\": {\"center\": [0, 0, 0], \"jitter\": 0.1,\n"
    "             \"keys\": [{\"t\": 0, \"target\": [1, 0, 0]}, {\"t\": 2, \"active\": false}]},\n"
    "    \"harmonic_phase\": \"zero\", \"blink_start\": \"random\", \"pose\": null\n"
    "  }, {\n"
    "    \"rig\": \"body\", \"count\": 2, \"pose\": {\"clip\": \"clip.csv\", \"offset\": \"random\", \"loop\": true}\n"
    "  }]\n"
    "}\n";

static char *good_clip(uint32_t rows) {
    float *lm = malloc(sizeof *lm * 132 * rows);
    char **t = malloc(sizeof *t * rows);
    for (uint32_t r = 0; r < rows; r++) {
        cli_synthetic_pose(r / 30.0, 0, &lm[r * 132]);
        t[r] = malloc(32);
        snprintf(t[r], 32, "%.6f", r / 30.0);
    }
    char *text = cli_clip_text(rows, (const char *const *)t, lm);
    for (uint32_t r = 0; r < rows; r++) free(t[r]);
    free(t);
    free(lm);
    return text;
}

/* Runs `crowd run scene.json --trace trace.csv` on the scene text; expects exit 2, the texts
 * on stderr, and no trace (nor trace.csv.tmp). */
#define EXPECT_SCENE_FAILS(text, ...)                                                         \
    do {                                                                                      \
        const char *scene_ = cli_write("scene.json", (text));                                 \
        const char *trace_ = cli_path("trace.csv");                                           \
        remove(trace_);                                                                       \
        cli_result r_ = cli_run("run", scene_, "--trace", trace_, "--simd", cli_target);      \
        cli_expect_fail(&r_, 2, "scene.json", __VA_ARGS__);                                   \
        assert_false(cli_exists(trace_));                                                     \
        assert_false(cli_exists_prefix(cli_path("trace.csv.")));                                  \
        cli_result_free(&r_);                                                                 \
    } while (0)

/* The scene with one replacement. */
#define MUTATED(from, to) cli_replace(base_scene, (from), (to))

static int setup_files(void **state) {
    (void)state;
    char *clip = good_clip(12);
    cli_write("clip.csv", clip);
    free(clip);
    return 0;
}

static void test_base_files_are_good(void **state) {
    (void)state;
    const char *scene = cli_write("scene.json", base_scene);
    const char *trace = cli_path("good_trace.csv");
    cli_result r = cli_run("run", scene, "--trace", trace, "--simd", cli_target, "--quiet");
    cli_expect_ok(&r);
    assert_true(cli_exists(trace));
    assert_false(cli_exists_prefix(cli_path("good_trace.csv.")));
    cli_result_free(&r);
    r = cli_run("pose", cli_path("clip.csv"), "--frame", "engine");
    cli_expect_ok(&r);
    assert_non_null(strstr(r.out, "frame,instance,bone,qx,qy,qz,qw\n1,0,hips,"));
    cli_result_free(&r);
}

static void test(const char *from, const char *to, const char *t1, const char *t2) {
    char *s = MUTATED(from, to);
    if (t2) EXPECT_SCENE_FAILS(s, t1, t2);
    else EXPECT_SCENE_FAILS(s, t1);
    free(s);
}

static void test_unknown_fields(void **state) {
    (void)state;
    test("\"damping\"", "\"dampng\"", "rigs[0].look.dampng: unknown field", "did you mean 'damping'");
    test("\"seed\"", "\"sed\"", ": sed: unknown field", NULL);
    test("\"jitter\"", "\"jiter\"", "groups[0].look.jiter: unknown field", NULL);
    test("{\"t\": 2, \"active\": false}", "{\"t\": 2, \"active\": false, \"speed\": 1}", "groups[0].look.keys[1].speed",
         "unknown field");
    test("\"loop\": true", "\"loop\": true, \"rate\": 2", "groups[1].pose.rate: unknown field", NULL);
    test("\"smoothing\": \"off\"", "\"smoothing\": \"off\", \"beta\": 2", "rigs[1].limbs.beta: unknown field", NULL);
}

static void test_bad_enums_and_types(void **state) {
    (void)state;
    test("\"axis\": \"x\"", "\"axis\": \"w\"", "rigs[0].look.parameters[0].axis", "\"w\" is not one of \"x\", \"y\", \"z\"");
    test("\"blend\": \"multiply\"", "\"blend\": \"multiplied\"", "rigs[0].blink.blend", "\"multiplied\"");
    test("\"direction\": \"centric\"", "\"direction\": \"center\"", "rigs[0].harmonic.parameters[0].direction", NULL);
    test("\"model\": \"sine\"", "\"model\": \"cosine\"", "rigs[0].blink.model", NULL);
    test("\"harmonic_phase\": \"zero\"", "\"harmonic_phase\": \"none\"", "groups[0].harmonic_phase", NULL);
    test("\"blink_start\": \"random\"", "\"blink_start\": \"now\"", "groups[0].blink_start", NULL);
    test("\"offset\": \"random\"", "\"offset\": \"half\"", "groups[1].pose.offset", NULL);
    test("\"frame\": \"engine\"", "\"frame\": \"camera\"", "rigs[1].limbs.frame", NULL);
    test("\"axis_fix\": \"y_along_bone\"", "\"axis_fix\": \"x_along_bone\"", "rigs[1].limbs.axis_fix", NULL);
    test("\"fallback\": \"root\"", "\"fallback\": \"next\"", "rigs[1].limbs.fallback", NULL);
    test("\"smoothing\": \"off\"", "\"smoothing\": \"kalman\"", "rigs[1].limbs.smoothing", NULL);
    test("\"smoothing\": \"off\"", "\"smoothing\": \"off\", \"outputs\": \"wrld\"", "rigs[1].limbs.outputs",
         "\"wrld\" is not one of \"both\", \"world\", \"local\"");
    test("\"smoothing\": \"off\"", "\"smoothing\": \"off\", \"outputs\": 1", "rigs[1].limbs.outputs", "expected a string");
    test("\"count\": 3", "\"count\": \"3\"", "groups[0].count", "expected an integer, got a string");
    test("\"count\": 3", "\"count\": 2.5", "groups[0].count", "not an integer");
    test("\"repeat\": false", "\"repeat\": 0", "rigs[0].parameters[0].repeat", "expected true or false");
    test("\"center\": [0, 0, 0]", "\"center\": [0, 0]", "groups[0].look.center", "3 numbers");
    test("\"factor\": 30", "\"factor\": 1e39", "rigs[0].look.parameters[0].factor", "float32 range");
    test("\"seed\": 3", "\"seed\": -3", "seed", "non-negative integer");
}

static void test_ranges(void **state) {
    (void)state;
    test("{\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1}", "{\"id\": \"ParamBreath\", \"min\": 2, \"max\": 1}",
         "rigs[0].parameters[1]", "min (2) > max (1)");
    test("\"duration\": 3", "\"duration\": 0", "rigs[0].harmonic.parameters[0].duration", "must be > 0");
    test("\"duration\": 3", "\"duration\": -1", "rigs[0].harmonic.parameters[0].duration", "must be > 0");
    test("\"channel\": 0", "\"channel\": 1", "rigs[0].harmonic.parameters[0].channel", "out of range");
    test("\"channel_timescales\": [1]", "\"channel_timescales\": [1, -1]", "rigs[0].harmonic.channel_timescales[1]",
         ">= 0");
    test("\"dt\": 0.0166666675", "\"dt\": 1.5", ": dt: 1.5 is out of range", NULL);
    test("\"dt\": 0.0166666675", "\"dt\": -0.01", ": dt: -0.00999999978 is out of range", NULL);
    test("\"count\": 3", "\"count\": -3", "groups[0].count", "-3 is out of range");
    test("\"frames\": 5", "\"frames\": -1", "frames", "out of range");
    test("\"jitter\": 0.1", "\"jitter\": -0.1", "groups[0].look.jitter", ">= 0");
    test("\"damping\": 0.15", "\"damping\": -1", "rigs[0].look.damping", ">= 0");
    test("\"max_speed\": null", "\"max_speed\": 0", "rigs[0].look.max_speed", "must be > 0");
    test("\"range\": 0.5", "\"range\": -0.5", "rigs[0].harmonic.parameters[0].range", NULL);
    test("\"timescale\": 10", "\"timescale\": 0", "rigs[0].blink.timescale", "must be > 0");
    /* the bounds and keys come from the controllers' settings tables (crowd_setting_info) */
    test("\"mean\": 2.5", "\"mean\": 2e6", "rigs[0].blink.mean", "2000000 is out of range: must be <= 1000000");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"fallback_sign\": [1, 1]",
         "rigs[1].limbs.fallback_sign", "expected an array of 4 numbers");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"fallback_sign\": [1, 1, 2, 1]",
         "rigs[1].limbs.fallback_sign[2]", "must be <= 1");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 1.5", "rigs[1].limbs.visibility_threshold", NULL);
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"hold_half_life\": 0", "rigs[1].limbs.hold_half_life",
         "must be > 0");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"reacquire_half_life\": 3601",
         "rigs[1].limbs.reacquire_half_life", "must be <= 3600");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"arm_image_bend\": 91",
         "rigs[1].limbs.arm_image_bend", "must be <= 90");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"arm_image_bend\": -1",
         "rigs[1].limbs.arm_image_bend", "must be >= 0");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"bend_full\": 95", "rigs[1].limbs.bend_full", NULL);
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"bend_min\": 50", "rigs[1].limbs.bend_min",
         "must be below bend_full");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"one_euro\": {\"beta\": -2}",
         "rigs[1].limbs.one_euro.beta", ">= 0");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"one_euro\": {\"min_cutoff\": 0}",
         "rigs[1].limbs.one_euro.min_cutoff", "must be > 0");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"one_euro\": {\"dcutoff\": 1}",
         "rigs[1].limbs.one_euro.dcutoff", "unknown field");
    test("\"visibility_threshold\": 0.5", "\"visibility_threshold\": 0.5, \"one_euro\": 3", "rigs[1].limbs.one_euro", NULL);
    test("\"min\": -30, \"max\": 30, \"default\": 0, \"repeat\": false", "\"min\": 1, \"max\": 1, \"repeat\": true",
         "rigs[0].parameters[0]", "repeat needs max > min");
}

static void test_unknown_and_duplicate_names(void **state) {
    (void)state;
    test("\"rig\": \"face\"", "\"rig\": \"nobody\"", "groups[0].rig", "no rig is called \"nobody\"");
    test("\"id\": \"ParamAngleX\", \"axis\"", "\"id\": \"ParamNope\", \"axis\"", "rigs[0].look.parameters[0].id",
         "\"ParamNope\" is not a parameter of rig \"face\"");
    test("\"parameters\": [\"ParamEyeLOpen\"]", "\"parameters\": [\"ParamEyeROpen\"]", "rigs[0].blink.parameters[0]",
         "ParamEyeROpen");
    test("{\"id\": \"ParamBreath\", \"min\": 0", "{\"id\": \"ParamAngleX\", \"min\": 0", "rigs[0].parameters[1].id",
         "repeats parameters[0].id");
    test("\"name\": \"body\"", "\"name\": \"face\"", "rigs[1].name", "repeats rigs[0].name");
    /* a group's look or pose needs the controller on its rig */
    test("\"rig\": \"body\", \"count\": 2,", "\"rig\": \"body\", \"count\": 2, \"look\": {},", "groups[1].look",
         "has no look controller");
    test("\"pose\": null", "\"pose\": {\"clip\": \"clip.csv\"}", "groups[0].pose", "has no limbs");
    test("{\"t\": 2, \"active\": false}", "{\"t\": 2, \"active\": true}", "groups[0].look.keys[1]", "needs a target");
    test("{\"t\": 2, \"active\": false}", "{\"t\": -1, \"target\": [0, 0, 0]}", "groups[0].look.keys[1].t", NULL);
    test("[{\"t\": 0, \"target\": [1, 0, 0]}, {\"t\": 2", "[{\"t\": 3, \"target\": [1, 0, 0]}, {\"t\": 2",
         "groups[0].look.keys[1].t", "time order");
}

static void test_malformed_json(void **state) {
    (void)state;
    /* line 4 loses its comma */
    test("\"name\": \"face\",\n", "\"name\": \"face\"\n", "scene.json:5:", NULL);
    test("\"seed\": 3, \"dt\"", "\"seed\": 3, \"seed\": 4, \"dt\"", "scene.json:2:", "duplicate");
    EXPECT_SCENE_FAILS("", "scene.json:");
    EXPECT_SCENE_FAILS("[1, 2]", "expected an object");
    EXPECT_SCENE_FAILS("{\"rigs\": {}}", "rigs: expected an array");
    cli_result r = cli_run("run", cli_path("no_such_scene.json"));
    cli_expect_fail(&r, 2, "no_such_scene.json", "cannot open");
    cli_result_free(&r);
}

static void test_bad_clips_in_scenes(void **state) {
    (void)state;
    test("\"clip\": \"clip.csv\"", "\"clip\": \"missing.csv\"", "missing.csv: cannot open the pose clip", "groups[1].pose.clip");
    /* the other clip errors: through `crowd pose` below, and one through a scene */
    char *clip = good_clip(4), *bad = cli_replace(clip, "\n2,", "\n2,nan,");
    cli_write("nan_clip.csv", bad);
    test("\"clip\": \"clip.csv\"", "\"clip\": \"nan_clip.csv\"", "nan_clip.csv:3:3: t_s", "not a finite number");
    free(bad);
    free(clip);
}

/* `crowd pose` on a bad clip: exit 2, "FILE:LINE:COLUMN: field ..." */
static void expect_clip_fails(const char *text, const char *t1, const char *t2) {
    const char *path = cli_write("bad.csv", text);
    const char *out = cli_path("bones.csv");
    remove(out);
    cli_result r = cli_run("pose", path, "--bones", out);
    if (t2) cli_expect_fail(&r, 2, t1, t2);
    else cli_expect_fail(&r, 2, t1);
    assert_false(cli_exists(out));
    assert_false(cli_exists_prefix(cli_path("bones.csv.")));
    cli_result_free(&r);
}

static void test_bad_clips(void **state) {
    (void)state;
    char *clip = good_clip(5);
    /* 32 landmarks: the last 4 columns of every line dropped */
    cli_buf b = {0};
    for (const char *line = clip; *line;) {
        const char *nl = strchr(line, '\n'), *cut = nl;
        for (int k = 0; k < 4; k++)
            for (cut--; *cut != ','; cut--) {}
        cli_buf_printf(&b, "%.*s\n", (int)(cut - line), line);
        line = nl + 1;
    }
    expect_clip_fails(b.text, "bad.csv:1:", "lm32_x");
    free(b.text);
    /* a header cut after its first column, no comma after it in the whole file (found by
     * fuzz_clip: the reader looked past the end of the text) */
    expect_clip_fails("frame\nt_o.5", "bad.csv:1:", "has 1 columns");
    expect_clip_fails("frame,t_s", "bad.csv:1:", "has 2 columns");

    /* one replacement in the good clip: where (file, line, column, field) and what is wrong */
    static const struct {
        const char *from, *to, *where, *fault;
    } edits[] = {
        {"lm7_y", "lm7_Y", "bad.csv:1:", "\"lm7_Y\" where \"lm7_y\" belongs"},
        {"lm32_vis\n", "lm32_vis,lm33_x\n", "bad.csv:1:", "extra column"},
        {"\n3,0.066667,", "\n3,0.066667,NaN,", "bad.csv:4:12: lm0_x", "not a finite number"},
        {"\n3,0.066667,", "\n3,0.066667,inf,", "bad.csv:4:12: lm0_x", "not a finite number"},
        {"\n3,0.066667,", "\n3,0.066667,abc,", "bad.csv:4:12: lm0_x", "not a number"},
        {"\n3,0.066667,", "\n3,0.01,", "bad.csv:4:3: t_s", "less than the previous row"},
        {",1\n3,", ",1.5\n3,", "bad.csv:3:", "lm32_vis: visibility 1.5 is outside [0, 1]"},
        {",1\n3,", "\n3,", "bad.csv:3:", "expected 134; lm32_vis is missing"},
        {",1\n3,", ",1,7\n3,", "bad.csv:3:", "more than 134 fields"},
        {"\n3,", "\n\n3,", "bad.csv:4:1", "empty line"},
    };
    char *s;
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        s = cli_replace(clip, edits[k].from, edits[k].to);
        expect_clip_fails(s, edits[k].where, edits[k].fault);
        free(s);
    }
    expect_clip_fails("", "bad.csv:1:1", "empty");
    char *header = strndup(clip, (size_t)(strchr(clip, '\n') - clip + 1));
    expect_clip_fails(header, "bad.csv:2:1", "no rows");
    free(header);
    /* a step longer than one tick may take */
    char *two = good_clip(2);
    s = cli_replace(two, "\n2,0.033333,", "\n2,1.5,");
    expect_clip_fails(s, "bad.csv:3: t_s: steps 1.5 s", "at most 1 s");
    free(s);
    free(two);
    cli_result r = cli_run("pose", cli_path("no_clip.csv"));
    cli_expect_fail(&r, 2, "no_clip.csv: cannot open the pose clip");
    cli_result_free(&r);
    free(clip);
}

static void test_bad_usage(void **state) {
    (void)state;
    const char *scene = cli_write("usage_scene.json", base_scene);
    static const struct {
        const char *args[6];
        const char *text;
    } cases[] = {
        {{"frob"}, "unknown command 'frob'"},
        {{"run", "--bogus"}, "run: unknown option '--bogus'"},
        {{"run", "--frames", "-1"}, "run: --frames: '-1'"},
        {{"run", "--frames", "ten"}, "run: --frames: 'ten'"},
        {{"run", "--frames"}, "run: --frames needs a value"},
        {{"run", "--dt", "2"}, "run: --dt: '2' is not a number in [0, 1]"},
        {{"run", "--dt", "nan"}, "run: --dt: 'nan'"},
        {{"run", "--dt=-0.5"}, "run: --dt: '-0.5'"},
        {{"run", "--threads", "0"}, "run: --threads: '0'"},
        {{"run", "--seed", "x"}, "run: --seed: 'x'"},
        {{"run", "--simd", "neon9"}, "run: --simd: 'neon9' is not one of auto, scalar, sse2, avx2, avx512 or wasm128"},
        {{"run", "a.json", "b.json"}, "run: unexpected argument 'b.json'"},
        {{"run", "--json=yes"}, "run: --json takes no value"},
        {{"pose"}, "pose: a pose clip is required"},
        {{"pose", "x.csv", "--axis-fix", "sideways"}, "pose: --axis-fix: 'sideways'"},
        {{"pose", "x.csv", "--frame", "camera"}, "pose: --frame: 'camera'"},
        {{"pose", "x.csv", "--fallback", "none"}, "pose: --fallback: 'none'"},
        {{"pose", "x.csv", "--smoothing", "on"}, "pose: --smoothing: 'on'"},
        {{"pose", "x.csv", "--visibility-threshold", "2"}, "pose: --visibility-threshold: '2'"},
        {{"pose", "x.csv", "--hold-half-life", "0"}, "pose: --hold-half-life: '0' is not a number in (0, 3600]"},
        {{"pose", "x.csv", "--reacquire-half-life", "4000"}, "pose: --reacquire-half-life: '4000'"},
        {{"pose", "x.csv", "--reacquire-half-life", "-1"}, "pose: --reacquire-half-life: '-1'"},
        {{"pose", "x.csv", "--arm-image-bend", "90.5"}, "pose: --arm-image-bend: '90.5'"},
        {{"pose", "x.csv", "--arm-image-bend", "-1"}, "pose: --arm-image-bend: '-1'"},
        {{"pose", "x.csv", "--bend-min", "-5"}, "pose: --bend-min: '-5'"},
        {{"pose", "x.csv", "--bend-full", "91"}, "pose: --bend-full: '91'"},
        {{"pose", "x.csv", "--bend-min", "50", "--bend-full", "40"}, "pose: --bend-min (50) must be below --bend-full (40)"},
        {{"pose", "x.csv", "--min-cutoff", "0"}, "pose: --min-cutoff: '0'"},
        {{"pose", "x.csv", "--beta", "-1"}, "pose: --beta: '-1'"},
        {{"pose", "x.csv", "--d-cutoff", "inf"}, "pose: --d-cutoff: 'inf'"},
        {{"pose", "x.csv", "--beta"}, "pose: --beta needs a value"},
        {{"render", "--size", "100"}, "render: --size: '100'"},
        {{"render", "--count", "0"}, "render: --count: '0'"},
        {{"render", "--frame", "0"}, "render: --frame: '0'"},
        {{"bench", "--frames", "0"}, "bench: --frames: '0'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *args[8] = {0};
        size_t n = 0;
        for (; n < 6 && cases[k].args[n]; n++) args[n] = cases[k].args[n];
        cli_result r = cli_run_argv(args, NULL);
        cli_expect_fail(&r, 2, cases[k].text);
        cli_result_free(&r);
    }
    (void)scene;
    cli_result r = cli_run("run", scene, "--trace", cli_path("same.csv"), "--bones", cli_path("same.csv"));
    cli_expect_fail(&r, 2, "name the same file");
    cli_result_free(&r);
    /* help is not an error */
    r = cli_run("run", "--help");
    cli_expect_ok(&r);
    assert_non_null(strstr(r.out, "usage: crowd run"));
    cli_result_free(&r);
    r = cli_run("--help");
    cli_expect_ok(&r);
    cli_result_free(&r);
}

static void test_model3_errors(void **state) {
    (void)state;
    const char *face = "\"name\": \"face\",\n";
    cli_write("no_blink_group.model3.json",
              "{\"Version\": 3, \"Groups\": [{\"Target\": \"Parameter\", \"Name\": \"LipSync\", \"Ids\": []}]}");
    cli_write("broken.model3.json", "{\"Version\": 3,\n \"Groups\": [}");
    cli_write("empty_blink.model3.json",
              "{\"Groups\": [{\"Target\": \"Parameter\", \"Name\": \"EyeBlink\", \"Ids\": []}]}");
    cli_write("unknown_id.model3.json",
              "{\"Groups\": [{\"Target\": \"Parameter\", \"Name\": \"EyeBlink\", \"Ids\": [\"ParamEyeROpen\"]}]}");
    char *with = cli_replace(base_scene, face, "\"name\": \"face\", \"model3\": \"missing.model3.json\",\n");
    EXPECT_SCENE_FAILS(with, "missing.model3.json");
    free(with);
    /* blink asked for, with its ids from model3, which lacks the EyeBlink group */
    char *a = cli_replace(base_scene, face, "\"name\": \"face\", \"model3\": \"no_blink_group.model3.json\",\n");
    char *b = cli_replace(a, "\"parameters\": [\"ParamEyeLOpen\"],", "");
    EXPECT_SCENE_FAILS(b, "rigs[0].blink", "no EyeBlink group");
    free(a);
    a = cli_replace(base_scene, face, "\"name\": \"face\", \"model3\": \"broken.model3.json\",\n");
    EXPECT_SCENE_FAILS(a, "broken.model3.json:2:");
    free(a);
    a = cli_replace(base_scene, face, "\"name\": \"face\", \"model3\": \"unknown_id.model3.json\",\n");
    free(b);
    b = cli_replace(a, "\"parameters\": [\"ParamEyeLOpen\"],", "");
    EXPECT_SCENE_FAILS(b, "rigs[0].blink", "\"ParamEyeROpen\" is not a parameter");
    free(a);
    free(b);
    /* both model3 and blink.parameters */
    a = cli_replace(base_scene, face, "\"name\": \"face\", \"model3\": \"empty_blink.model3.json\",\n");
    EXPECT_SCENE_FAILS(a, "rigs[0].blink.parameters", "not both");
    /* a missing group is fine when no blink is asked for; an empty group gives no parameters */
    b = cli_replace(a, "\"parameters\": [\"ParamEyeLOpen\"],", "");
    const char *scene = cli_write("empty_blink.json", b);
    cli_result r = cli_run("run", scene, "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    free(a);
    free(b);
}

static void test_engine_limits_are_bad_input(void **state) {
    (void)state;
    /* max - min overflows float32: caught before the engine */
    test("{\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1}", "{\"id\": \"ParamBreath\", \"min\": -3e38, \"max\": 3e38}",
         "rigs[0].parameters[1]", "overflows");
    /* what the run writes straight into the engine's columns obeys crowd_instances_set's rules:
     * a look target (with the jitter) or a clip coordinate the engine refuses is bad input, not
     * a run of NaN (the engine bounds look targets to +-1e15, landmark coordinates to +-1e9) */
    test("\"target\": [1, 0, 0]", "\"target\": [3e37, 0, 0]", "groups[0].look.keys[0].target", "look_target");
    char *clip = good_clip(4);
    /* row 2 (line 3): its lm0_x field becomes 1e20 */
    char *row = strstr(clip, "\n2,");
    assert_non_null(row);
    char *x = strchr(strchr(row + 1, ',') + 1, ',') + 1, *x_end = strchr(x, ',');
    cli_buf b = {0};
    cli_buf_printf(&b, "%.*s1e20%s", (int)(x - clip), clip, x_end);
    cli_write("big_clip.csv", b.text);
    test("\"clip\": \"clip.csv\"", "\"clip\": \"big_clip.csv\"", "groups[1].pose.clip: ", "big_clip.csv:3: a row the engine refuses");
    free(b.text);
    free(clip);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_files_are_good),
        cmocka_unit_test(test_unknown_fields),
        cmocka_unit_test(test_bad_enums_and_types),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_unknown_and_duplicate_names),
        cmocka_unit_test(test_malformed_json),
        cmocka_unit_test(test_bad_clips_in_scenes),
        cmocka_unit_test(test_bad_clips),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_model3_errors),
        cmocka_unit_test(test_engine_limits_are_bad_input),
    };
    return cmocka_run_group_tests_name("cli_inputs", tests, setup_files, NULL);
}
