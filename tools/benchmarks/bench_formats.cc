// The file formats of the crowd command (tools/):
// - reading landmark JSON (landmark_json.c), in bytes of JSON per second: the built-in walk
//   written as MediaPipe Tasks NDJSON (one result a line, %.9g numbers, as trackers print them),
//   as a Tasks array and as a TF.js recording, parsed from memory into a pose clip;
// - `crowd render --gif` of the default crowd, 2,000 avatars x 120 frames at 640x360, one thread:
//   the whole command (simulating the 10,000-avatar crowd, drawing, the palette, encoding and
//   writing crowd_bench_render.gif in the working folder, removed after), in process CPU time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "clip.h"
#include "commands.h"
#include "default_crowd.h"
#include "landmark_json.h"
}

namespace {

enum Shape { TASKS_NDJSON, TASKS_ARRAY, TFJS };

// The walk clip repeated `rows` rows in the given shape.
std::string make_json(Shape shape, uint32_t rows) {
    pose_clip walk;
    if (default_walk_clip(&walk) != 0) return {};
    std::string s;
    char num[64];
    auto put = [&](const char *key, float v, bool comma) {
        std::snprintf(num, sizeof num, "\"%s\": %.9g%s", key, static_cast<double>(v), comma ? ", " : "");
        s += num;
    };
    if (shape == TASKS_ARRAY) s += "[\n";
    if (shape == TFJS) s += "{\"ticksPerSecond\": 30, \"frames\": [\n";
    for (uint32_t k = 0; k < rows; k++) {
        const float *lm = &walk.landmarks[static_cast<size_t>(k % walk.row_count) * CLIP_FLOATS];
        if (shape == TFJS) {
            std::snprintf(num, sizeof num, "{\"frameNum\": %u, \"keypoints3D\": [", k);
        } else {
            std::snprintf(num, sizeof num, "{\"timestamp_ms\": %.9g, \"worldLandmarks\": [[", k * 1000.0 / 30.0);
        }
        s += num;
        for (int j = 0; j < CROWD_LANDMARK_COUNT; j++) {
            s += "{";
            put("x", lm[j * 4], true);
            put("y", lm[j * 4 + 1], true);
            put("z", lm[j * 4 + 2], true);
            put(shape == TFJS ? "score" : "visibility", lm[j * 4 + 3], shape != TFJS);
            if (shape != TFJS) put("presence", 0.99f, false);
            s += j + 1 < CROWD_LANDMARK_COUNT ? "}, " : "}";
        }
        s += shape == TFJS ? "]}" : "]]}";
        if (shape != TASKS_NDJSON && k + 1 < rows) s += ",";
        s += "\n";
    }
    if (shape == TASKS_ARRAY) s += "]\n";
    if (shape == TFJS) s += "]}\n";
    clip_free(&walk);
    return s;
}

void BM_LandmarkJson(benchmark::State &state) {
    Shape shape = static_cast<Shape>(state.range(0));
    std::string text = make_json(shape, static_cast<uint32_t>(state.range(1)));
    if (text.empty()) {
        state.SkipWithError("could not build the walk clip");
        return;
    }
    for (auto _ : state) {
        pose_clip clip;
        if (landmark_json_parse("bench.json", text.data(), text.size(), &clip) != 0) {
            state.SkipWithError("the reader refused the generated JSON");
            return;
        }
        benchmark::DoNotOptimize(clip.landmarks);
        clip_free(&clip);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
    state.counters["frames_per_second"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(state.range(1)),
                           benchmark::Counter::kIsRate);
}

void BM_RenderGif(benchmark::State &state) {
    const char *path = "crowd_bench_render.gif";
    std::string frames = "1:" + std::to_string(state.range(1));
    std::string count = std::to_string(state.range(0));
    for (auto _ : state) {
        const char *args[] = {"render", "--gif", path, "--frames", frames.c_str(), "--count", count.c_str(),
                              "--size", "640x360", "--threads", "1", "--quiet"};
        std::vector<char *> argv;
        for (const char *a : args) argv.push_back(const_cast<char *>(a));
        if (cmd_render(static_cast<int>(argv.size()), argv.data()) != 0) {
            state.SkipWithError("crowd render --gif failed");
            break;
        }
    }
    std::remove(path);
    state.counters["frames_per_second"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(state.range(1)),
                           benchmark::Counter::kIsRate);
}

}  // namespace

// shape (0 Tasks NDJSON, 1 Tasks array, 2 TF.js recording) x frames (about 5.5 KB each)
BENCHMARK(BM_LandmarkJson)->ArgNames({"shape", "frames"})->Args({0, 3000})->Args({1, 3000})->Args({2, 3000})
    ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

// avatars x frames at 640x360
BENCHMARK(BM_RenderGif)->ArgNames({"avatars", "frames"})->Args({2000, 120})->Iterations(3)
    ->Unit(benchmark::kSecond)->MeasureProcessCPUTime();
