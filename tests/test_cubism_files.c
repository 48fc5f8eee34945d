/* The Live2D readers (io/live2d/cubism_files.c) refuse every bad field by name: for each file
 * kind, a valid file read into *out, then table rows that each break one field; each must
 * return TOOL_BAD_INPUT with a message naming the JSON path and the value, and leave *out as it
 * was (bytes of the struct and the contents it points to). Rows are written with ' for " . */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cubism_files.h"
#include "diag.h"

static int g_failures;

/* stderr of one call, captured through a temporary file. */
static char g_message[4096];

static void capture_begin(FILE **tmp, int *saved) {
    fflush(stderr);
    *tmp = tmpfile();
    *saved = dup(2);
    dup2(fileno(*tmp), 2);
}

static void capture_end(FILE *tmp, int saved) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(g_message, 1, sizeof g_message - 1, tmp);
    g_message[n] = 0;
    fclose(tmp);
}

static char *quotes(const char *text) {
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'') *p = '"';
    return s;
}

typedef struct row {
    const char *json;
    const char *expect; /* in the message */
} row;

typedef int (*parse_fn)(const char *name, const char *text, size_t size, void *out);

/* Reads `good` into a struct of `size` bytes, then every row into the same struct. */
static void run_table(const char *kind, parse_fn parse, void (*release)(void *), size_t size, const char *good,
                      const row *rows, size_t n, void (*check_good)(const void *)) {
    void *out = calloc(1, size), *before = malloc(size);
    char *text = quotes(good);
    int st = parse(kind, text, strlen(text), out);
    free(text);
    if (st != TOOL_OK) {
        fprintf(stderr, "FAIL: %s: the valid file is refused\n", kind);
        g_failures++;
        goto done;
    }
    check_good(out);
    memcpy(before, out, size);
    for (size_t i = 0; i < n; i++) {
        FILE *tmp;
        int saved;
        char *bad = quotes(rows[i].json);
        capture_begin(&tmp, &saved);
        st = parse(kind, bad, strlen(bad), out);
        capture_end(tmp, saved);
        char *expect = quotes(rows[i].expect);
        bool named = strstr(g_message, kind) && strstr(g_message, expect);
        if (st != TOOL_BAD_INPUT || !named || memcmp(before, out, size) != 0) {
            fprintf(stderr, "FAIL: %s row %zu %s: status %d, message \"%s\", want \"%s\"%s\n", kind, i, rows[i].json, st,
                    g_message, expect, memcmp(before, out, size) ? ", and the struct changed" : "");
            g_failures++;
            if (st == TOOL_OK && memcmp(before, out, size) != 0) { /* a wrongly accepted file: free it, keep the good */
                release(out);
                memcpy(out, before, size);
            }
        } else {
            printf("%s: refused: %s", kind, g_message);
        }
        free(expect);
        free(bad);
    }
    check_good(out); /* what the pointers lead to is intact too */
    release(out);
done:
    free(out);
    free(before);
}

#define CHECK_GOOD(cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                            \
            g_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

/* ---- motion3 ---- */

#define META "'Meta':{'Duration':1,'Fps':30,'CurveCount':1,'TotalSegmentCount':1,'TotalPointCount':2,'UserDataCount':1}"
#define CURVE "{'Target':'Parameter','Id':'P','Segments':[0,0,0,1,1]}"
#define USER "'UserData':[{'Time':0.5,'Value':'e'}]"

static const char motion_good[] = "{'Version':3," META ",'Curves':[" CURVE "]," USER "}";

static const row motion_rows[] = {
    {"[1]", "(root): is an array"},
    {"{'Meta':", ":1:"},
    {"{'Curves':[" CURVE "]}", "Meta: missing"},
    {"{'Meta':3,'Curves':[]}", "Meta: is a number"},
    {"{'Meta':{'Fps':30,'CurveCount':1,'TotalSegmentCount':1,'TotalPointCount':2},'Curves':[" CURVE "]}",
     "Meta.Duration: missing"},
    {"{'Meta':{'Duration':'1','Fps':30},'Curves':[]}", "Meta.Duration: is a string"},
    {"{'Meta':{'Duration':0,'Fps':30},'Curves':[]}", "Meta.Duration: 0, want > 0"},
    {"{'Meta':{'Duration':-2,'Fps':30},'Curves':[]}", "Meta.Duration: -2"},
    {"{'Meta':{'Duration':1},'Curves':[]}", "Meta.Fps: missing"},
    {"{'Meta':{'Duration':1,'Fps':0},'Curves':[]}", "Meta.Fps: 0, want > 0"},
    {"{'Meta':{'Duration':1,'Fps':30,'Loop':'yes'},'Curves':[]}", "Meta.Loop: is a string"},
    {"{'Meta':{'Duration':1,'Fps':30,'AreBeziersRestricted':1},'Curves':[]}", "Meta.AreBeziersRestricted: is a number"},
    {"{'Meta':{'Duration':1,'Fps':30,'FadeInTime':'x'},'Curves':[]}", "Meta.FadeInTime: is a string"},
    {"{'Meta':{'Duration':1,'Fps':30,'FadeOutTime':null},'Curves':[]}", "Meta.FadeOutTime: is null"},
    {"{'Meta':{'Duration':1,'Fps':30,'CurveCount':2,'TotalSegmentCount':1,'TotalPointCount':2},'Curves':[" CURVE "]}",
     "Meta.CurveCount: 2, but the file holds 1"},
    {"{'Meta':{'Duration':1,'Fps':30,'CurveCount':1,'TotalSegmentCount':5,'TotalPointCount':2},'Curves':[" CURVE "]}",
     "Meta.TotalSegmentCount: 5, but the file holds 1"},
    {"{'Meta':{'Duration':1,'Fps':30,'CurveCount':1,'TotalSegmentCount':1,'TotalPointCount':9},'Curves':[" CURVE "]}",
     "Meta.TotalPointCount: 9, but the file holds 2"},
    {"{'Meta':{'Duration':1,'Fps':30,'CurveCount':1,'TotalSegmentCount':1},'Curves':[" CURVE "]}",
     "Meta.TotalPointCount: missing"},
    {"{'Meta':{'Duration':1,'Fps':30,'CurveCount':1.5,'TotalSegmentCount':1,'TotalPointCount':2},'Curves':[" CURVE "]}",
     "Meta.CurveCount: is a number, want an integer"},
    {"{" META ",'Curves':[" CURVE "],'UserData':[]}", "Meta.UserDataCount: 1, but the file holds 0"},
    {"{" META "}", "Curves: missing"},
    {"{" META ",'Curves':{}}", "Curves: is an object"},
    {"{" META ",'Curves':[7]," USER "}", "Curves[0]: is a number"},
    {"{" META ",'Curves':[{'Target':'Bone','Id':'P','Segments':[0,0,0,1,1]}]," USER "}", "Curves[0].Target: 'Bone'"},
    {"{" META ",'Curves':[{'Id':'P','Segments':[0,0,0,1,1]}]," USER "}", "Curves[0].Target: missing"},
    {"{'Meta':{'Duration':1,'Fps':30},'Curves':[{'Target':'PartOpacity','Id':'A','Segments':[0,0,0,1,1]},"
     "{'Target':'Parameter','Id':'P','Segments':[0,0,0,1,1]}]}",
     "Curves[1].Target: 'Parameter' after a 'PartOpacity' curve"},
    {"{" META ",'Curves':[{'Target':'Parameter','Segments':[0,0,0,1,1]}]," USER "}", "Curves[0].Id: missing"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'','Segments':[0,0,0,1,1]}]," USER "}", "Curves[0].Id: is empty"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':3,'Segments':[0,0,0,1,1]}]," USER "}", "Curves[0].Id: is a number"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','FadeInTime':'a','Segments':[0,0,0,1,1]}]," USER "}",
     "Curves[0].FadeInTime: is a string"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','FadeOutTime':[],'Segments':[0,0,0,1,1]}]," USER "}",
     "Curves[0].FadeOutTime: is an array"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P'}]," USER "}", "Curves[0].Segments: missing"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':5}]," USER "}", "Curves[0].Segments: is a number"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0]}]," USER "}",
     "Curves[0].Segments: only a first point"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0]}]," USER "}", "Curves[0].Segments: 1 numbers"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0,0,'1',1]}]," USER "}",
     "Curves[0].Segments[3]: is a string"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0,7,1,1]}]," USER "}",
     "Curves[0].Segments[2]: segment type 7"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0,0.5,1,1]}]," USER "}",
     "Curves[0].Segments[2]: segment type 0.5"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0,1,0.3,1,0.6]}]," USER "}",
     "Curves[0].Segments[2]: a segment of type 1 needs 6 numbers after it, the array has 3"},
    {"{" META ",'Curves':[{'Target':'Parameter','Id':'P','Segments':[0,0,0,1,1,0,0.5,2]}]," USER "}",
     "Curves[0].Segments[6]: time 0.5 comes before the previous point at 1"},
    {"{" META ",'Curves':[" CURVE "],'UserData':{}}", "UserData: is an object"},
    {"{" META ",'Curves':[" CURVE "],'UserData':['e']}", "UserData[0]: is a string"},
    {"{" META ",'Curves':[" CURVE "],'UserData':[{'Value':'e'}]}", "UserData[0].Time: missing"},
    {"{" META ",'Curves':[" CURVE "],'UserData':[{'Time':0,'Value':1}]}", "UserData[0].Value: a number"},
};

static int motion_parse(const char *name, const char *text, size_t size, void *out) {
    return cubism_motion_parse(name, text, size, out);
}
static void motion_release(void *p) { cubism_motion_free(p); }
static void motion_check(const void *p) {
    const cubism_motion *m = p;
    CHECK_GOOD(m->curve_count == 1 && m->segment_count == 1 && m->point_count == 2 && m->event_count == 1);
    CHECK_GOOD(m->curves && strcmp(m->curves[0].id, "P") == 0 && m->curves[0].target == CUBISM_TARGET_PARAMETER);
    CHECK_GOOD(m->points && m->points[1].time == 1 && m->points[1].value == 1 && m->segment_points[0] == 0);
    CHECK_GOOD(m->events && strcmp(m->events[0].value, "e") == 0 && m->events[0].time == 0.5);
    CHECK_GOOD(m->fade_in == 1.0 && m->fade_out == 1.0 && m->curves[0].fade_in == -1.0);
}

/* ---- exp3 ---- */

static const char expression_good[] =
    "{'Type':'Live2D Expression','FadeInTime':0.4,'Parameters':[{'Id':'A','Value':2,'Blend':'Multiply'},"
    "{'Id':'B','Value':-1}]}";

static const row expression_rows[] = {
    {"'x'", ":1:"},
    {"{'Parameters':[}", ":1:"},
    {"{'FadeInTime':-1,'Parameters':[]}", "FadeInTime: -1, want >= 0"},
    {"{'FadeInTime':'1','Parameters':[]}", "FadeInTime: is a string"},
    {"{'FadeOutTime':-0.5,'Parameters':[]}", "FadeOutTime: -0.5, want >= 0"},
    {"{'FadeOutTime':true,'Parameters':[]}", "FadeOutTime: is a boolean"},
    {"{}", "Parameters: missing"},
    {"{'Parameters':{}}", "Parameters: is an object"},
    {"{'Parameters':[3]}", "Parameters[0]: is a number"},
    {"{'Parameters':[{'Id':'A','Value':1},{'Value':1}]}", "Parameters[1].Id: missing"},
    {"{'Parameters':[{'Id':'','Value':1}]}", "Parameters[0].Id: is empty"},
    {"{'Parameters':[{'Id':'A'}]}", "Parameters[0].Value: missing"},
    {"{'Parameters':[{'Id':'A','Value':'2'}]}", "Parameters[0].Value: is a string"},
    {"{'Parameters':[{'Id':'A','Value':2,'Blend':'Screen'}]}", "Parameters[0].Blend: 'Screen'"},
    {"{'Parameters':[{'Id':'A','Value':2,'Blend':2}]}", "Parameters[0].Blend: is a number"},
};

static int expression_parse(const char *name, const char *text, size_t size, void *out) {
    return cubism_expression_parse(name, text, size, out);
}
static void expression_release(void *p) { cubism_expression_free(p); }
static void expression_check(const void *p) {
    const cubism_expression *e = p;
    CHECK_GOOD(e->fade_in == 0.4 && e->fade_out == 1.0 && e->parameter_count == 2);
    CHECK_GOOD(e->parameters && strcmp(e->parameters[0].id, "A") == 0 && e->parameters[0].blend == CUBISM_BLEND_MULTIPLY);
    CHECK_GOOD(e->parameters && strcmp(e->parameters[1].id, "B") == 0 && e->parameters[1].blend == CUBISM_BLEND_ADD &&
               e->parameters[1].value == -1);
}

/* ---- pose3 ---- */

static const char pose_good[] =
    "{'Type':'Live2D Pose','Groups':[[{'Id':'A','Link':['A2']},{'Id':'B','Link':[]}],[{'Id':'C'}]]}";

static const row pose_rows[] = {
    {"null", ":1:"},
    {"{'Groups':[[{'Id':'A'}]}", ":1:"},
    {"{'FadeInTime':'1','Groups':[]}", "FadeInTime: is a string"},
    {"{}", "Groups: missing"},
    {"{'Groups':{}}", "Groups: is an object"},
    {"{'Groups':[{'Id':'A'}]}", "Groups[0]: is an object"},
    {"{'Groups':[[{'Id':'A'}],[]]}", "Groups[1]: empty"},
    {"{'Groups':[['A']]}", "Groups[0][0]: is a string"},
    {"{'Groups':[[{'Link':[]}]]}", "Groups[0][0].Id: missing"},
    {"{'Groups':[[{'Id':''}]]}", "Groups[0][0].Id: is empty"},
    {"{'Groups':[[{'Id':'A','Link':'B'}]]}", "Groups[0][0].Link: is a string"},
    {"{'Groups':[[{'Id':'A'},{'Id':'B','Link':['C',4]}]]}", "Groups[0][1].Link[1]: is a number"},
};

static int pose_parse(const char *name, const char *text, size_t size, void *out) {
    return cubism_pose_parse(name, text, size, out);
}
static void pose_release(void *p) { cubism_pose_free(p); }
static void pose_check(const void *p) {
    const cubism_pose *d = p;
    CHECK_GOOD(d->fade_in == 0.5 && d->group_count == 2 && d->part_count == 3 && d->link_count == 1);
    CHECK_GOOD(d->group_first && d->group_first[0] == 0 && d->group_first[1] == 2 && d->group_first[2] == 3);
    CHECK_GOOD(d->part_ids && strcmp(d->part_ids[2], "C") == 0 && strcmp(d->link_ids[0], "A2") == 0);
    CHECK_GOOD(d->link_first && d->link_first[0] == 0 && d->link_first[1] == 1 && d->link_first[3] == 1);
}

/* ---- model3 ---- */

static const char model3_good[] =
    "{'Version':3,'FileReferences':{'Moc':'m.moc3','Motions':{'Idle':[{'File':'i.motion3.json','FadeInTime':0.5}],"
    "'Tap':[{'File':'t.motion3.json','Sound':'t.wav'}]},'Expressions':[{'Name':'F1','File':'f1.exp3.json'}],"
    "'Pose':'p.pose3.json'},'Groups':[{'Target':'Parameter','Name':'EyeBlink','Ids':['L','R']},"
    "{'Target':'Parameter','Name':'LipSync','Ids':['M']}]}";

static const row model3_rows[] = {
    {"[]", "(root): is an array"},
    {"{'FileReferences':", ":1:"},
    {"{'FileReferences':[]}", "FileReferences: is an array"},
    {"{'FileReferences':{'Motions':[]}}", "FileReferences.Motions: is an array"},
    {"{'FileReferences':{'Motions':{'Idle':{}}}}", "FileReferences.Motions.Idle: is an object"},
    {"{'FileReferences':{'Motions':{'Idle':['a']}}}", "FileReferences.Motions.Idle[0]: is a string"},
    {"{'FileReferences':{'Motions':{'Idle':[{'FadeInTime':1}]}}}", "FileReferences.Motions.Idle[0].File: missing"},
    {"{'FileReferences':{'Motions':{'Idle':[{'File':''}]}}}", "FileReferences.Motions.Idle[0].File: is empty"},
    {"{'FileReferences':{'Motions':{'Idle':[{'File':'a','FadeInTime':'1'}]}}}",
     "FileReferences.Motions.Idle[0].FadeInTime: is a string"},
    {"{'FileReferences':{'Motions':{'Idle':[{'File':'a','FadeOutTime':{}}]}}}",
     "FileReferences.Motions.Idle[0].FadeOutTime: is an object"},
    {"{'FileReferences':{'Motions':{'Idle':[{'File':'a','Sound':5}]}}}", "FileReferences.Motions.Idle[0].Sound: is a number"},
    {"{'FileReferences':{'Expressions':{}}}", "FileReferences.Expressions: is an object"},
    {"{'FileReferences':{'Expressions':[3]}}", "FileReferences.Expressions[0]: is a number"},
    {"{'FileReferences':{'Expressions':[{'File':'f'}]}}", "FileReferences.Expressions[0].Name: missing"},
    {"{'FileReferences':{'Expressions':[{'Name':'F'}]}}", "FileReferences.Expressions[0].File: missing"},
    {"{'FileReferences':{'Pose':7}}", "FileReferences.Pose: is a number"},
    {"{'FileReferences':{'Pose':''}}", "FileReferences.Pose: is empty"},
    {"{'Groups':{}}", "Groups: is an object"},
    {"{'Groups':[1]}", "Groups[0]: is a number"},
    {"{'Groups':[{'Target':'Parameter','Ids':[]}]}", "Groups[0].Name: missing"},
    {"{'Groups':[{'Name':'EyeBlink','Target':1,'Ids':[]}]}", "Groups[0].Target: a number"},
    {"{'Groups':[{'Name':'EyeBlink','Target':'Parameter'}]}", "Groups[0].Ids: missing"},
    {"{'Groups':[{'Name':'EyeBlink','Target':'Parameter','Ids':['L','']}]}", "Groups[0].Ids[1]: is empty"},
    {"{'Groups':[{'Name':'LipSync','Target':'Parameter','Ids':[3]}]}", "Groups[0].Ids[0]: is a number"},
    {"{'Groups':[{'Name':'LipSync','Target':'Parameter','Ids':[]},{'Name':'Other','Target':'Part','Ids':[false]}]}",
     "Groups[1].Ids[0]: is a boolean"},
};

static int model3_parse(const char *name, const char *text, size_t size, void *out) {
    return cubism_model3_parse(name, text, size, out);
}
static void model3_release(void *p) { cubism_model3_free(p); }
static void model3_check(const void *p) {
    const cubism_model3 *m = p;
    CHECK_GOOD(m->motion_group_count == 2 && m->expression_count == 1 && m->pose && strcmp(m->pose, "p.pose3.json") == 0);
    CHECK_GOOD(m->motion_groups && strcmp(m->motion_groups[0].name, "Idle") == 0 &&
               m->motion_groups[0].motions[0].fade_in == 0.5 && m->motion_groups[0].motions[0].fade_out == -1);
    CHECK_GOOD(m->motion_groups && strcmp(m->motion_groups[1].motions[0].sound, "t.wav") == 0 &&
               m->motion_groups[0].motions[0].sound == NULL);
    CHECK_GOOD(m->eye_blink_count == 2 && strcmp(m->eye_blink_ids[1], "R") == 0 && m->lip_sync_count == 1);
    CHECK_GOOD(m->expressions && strcmp(m->expressions[0].file, "f1.exp3.json") == 0);
}

#define TABLE(kind, name) run_table(kind, name##_parse, name##_release, sizeof(cubism_##name), name##_good, name##_rows, \
                                    sizeof name##_rows / sizeof name##_rows[0], name##_check)

int main(void) {
    TABLE("bad.motion3.json", motion);
    TABLE("bad.exp3.json", expression);
    TABLE("bad.pose3.json", pose);
    TABLE("bad.model3.json", model3);

    /* An id longer than the limit, refused before it is copied. */
    {
        size_t n = CUBISM_MAX_ID_BYTES + 1;
        char *text = malloc(n + 64);
        strcpy(text, "{\"Parameters\":[{\"Id\":\"");
        size_t len = strlen(text);
        memset(text + len, 'x', n);
        strcpy(text + len + n, "\",\"Value\":1}]}");
        cubism_expression e = {0};
        FILE *tmp;
        int saved;
        capture_begin(&tmp, &saved);
        int st = cubism_expression_parse("long.exp3.json", text, strlen(text), &e);
        capture_end(tmp, saved);
        if (st != TOOL_BAD_INPUT || !strstr(g_message, "Parameters[0].Id: is 1025 bytes long, at most 1024") ||
            e.parameters) {
            fprintf(stderr, "FAIL: long id: %d %s\n", st, g_message);
            g_failures++;
        }
        free(text);
    }
    /* A file that is not there, and a folder: the tools' file rules. */
    {
        cubism_motion m = {0};
        FILE *tmp;
        int saved;
        capture_begin(&tmp, &saved);
        int a = cubism_motion_read("no-such.motion3.json", &m), b = cubism_motion_read(".", &m);
        capture_end(tmp, saved);
        if (a == TOOL_OK || b == TOOL_OK || m.curves) {
            fprintf(stderr, "FAIL: missing file or folder accepted (%d, %d)\n", a, b);
            g_failures++;
        }
    }
    printf("%d failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
