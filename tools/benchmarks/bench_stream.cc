// crowd stream --vmc, measured from outside, as a tracker and a VMC receiver see it: the built
// crowd program is started with a pipe on its standard input and sends to a UDP socket on
// 127.0.0.1 here; one avatar. Lines are the built-in walk written as MediaPipe Tasks NDJSON.
//  - BM_StreamLatency: a line is written, then its bundle awaited; latency = the kernel's receive
//    timestamp of the datagram (SO_TIMESTAMPNS; on loopback, when it left crowd) minus the time
//    just before write(), so it counts the pipe, the read, decoding, the solve, the OSC encoding
//    and the send, and not this program's own wake-up. 1 ms pause between lines (a tracker's
//    frames come apart, so crowd waits in read() each time). Counters p50_us, p99_us, max_us.
//  - BM_StreamThroughput: 3000 lines written as fast as the pipe takes them; frames per second
//    from the first write to the last bundle's arrival (items_per_second).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "clip.h"
#include "default_crowd.h"
}

extern char **environ;

namespace {

double realtime_now() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Row k of the walk (looped) as one Tasks result line, at k/30 s.
class Lines {
  public:
    Lines() { ok_ = default_walk_clip(&walk_) == 0; }
    ~Lines() {
        if (ok_) clip_free(&walk_);
    }
    bool ok() const { return ok_; }
    std::string line(uint32_t k) const {
        const float *lm = &walk_.landmarks[static_cast<size_t>(k % walk_.row_count) * CLIP_FLOATS];
        std::string s;
        char num[160];
        std::snprintf(num, sizeof num, "{\"timestamp_ms\": %.9g, \"worldLandmarks\": [[", k * 1000.0 / 30.0);
        s += num;
        for (int j = 0; j < CROWD_LANDMARK_COUNT; j++) {
            // the walk is in the engine frame: a tracker's world landmarks have y down
            std::snprintf(num, sizeof num, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"visibility\": %.9g}", j ? ", " : "",
                          static_cast<double>(lm[j * 4]), static_cast<double>(-lm[j * 4 + 1]),
                          static_cast<double>(lm[j * 4 + 2]), static_cast<double>(lm[j * 4 + 3]));
            s += num;
        }
        s += "]]}\n";
        return s;
    }

  private:
    pose_clip walk_{};
    bool ok_ = false;
};

// A UDP socket on 127.0.0.1 with kernel receive timestamps.
struct Receiver {
    int fd = -1;
    int port = 0;
    bool open() {
        fd = socket(AF_INET, SOCK_DGRAM, 0);
        int on = 1, size = 8 << 20;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) return false;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
            getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
            return false;
        port = ntohs(addr.sin_port);
        return true;
    }
    // One datagram within timeout_ms: its kernel timestamp (CLOCK_REALTIME), or < 0.
    double receive(int timeout_ms) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) <= 0) return -1;
        static char data[65536];
        char control[256];
        iovec iov{data, sizeof data};
        msghdr m{};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        if (recvmsg(fd, &m, 0) <= 0 || std::memcmp(data, "#bundle", 8) != 0) return -1;
        for (cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
            if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPNS) {
                timespec ts;
                std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
                return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
            }
        return -1;
    }
    ~Receiver() {
        if (fd >= 0) close(fd);
    }
};

// crowd stream --vmc 127.0.0.1:PORT, its standard input a pipe (returned), output discarded.
struct Stream {
    pid_t pid = -1;
    int in = -1;
    bool start(int port) {
        int to[2];
        if (pipe(to) != 0) return false;
        std::string target = "127.0.0.1:" + std::to_string(port);
        const char *argv[] = {CROWD_EXE, "stream", "--vmc", target.c_str(), nullptr};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, to[0], 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addclose(&fa, to[1]);
        int rc = posix_spawn(&pid, CROWD_EXE, &fa, nullptr, const_cast<char *const *>(argv), environ);
        posix_spawn_file_actions_destroy(&fa);
        close(to[0]);
        in = to[1];
        return rc == 0;
    }
    bool write_all(const std::string &s) {
        size_t done = 0;
        while (done < s.size()) {
            ssize_t n = write(in, s.data() + done, s.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<size_t>(n);
        }
        return true;
    }
    int finish() {
        if (in >= 0) close(in);
        in = -1;
        int status = 0;
        if (pid > 0) waitpid(pid, &status, 0);
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    ~Stream() { finish(); }
};

void BM_StreamLatency(benchmark::State &state) {
    Lines lines;
    Receiver rx;
    Stream crowd;
    if (!lines.ok() || !rx.open() || !crowd.start(rx.port)) {
        state.SkipWithError("cannot start crowd stream");
        return;
    }
    std::vector<double> latency;
    uint32_t k = 0;
    for (auto _ : state) {
        std::string line = lines.line(k++);
        timespec pause{0, 1000000};
        nanosleep(&pause, nullptr);
        double sent = realtime_now();
        if (!crowd.write_all(line)) {
            state.SkipWithError("write failed");
            break;
        }
        double left = rx.receive(2000);
        if (left < 0) {
            state.SkipWithError("no bundle within 2 s");
            break;
        }
        latency.push_back(left - sent);
        state.SetIterationTime(left - sent);
    }
    if (crowd.finish() != 0) state.SkipWithError("crowd stream failed");
    if (latency.empty()) return;
    std::sort(latency.begin(), latency.end());
    auto at = [&](double p) { return latency[std::min(latency.size() - 1, static_cast<size_t>(p * latency.size()))]; };
    state.counters["p50_us"] = at(0.50) * 1e6;
    state.counters["p99_us"] = at(0.99) * 1e6;
    state.counters["max_us"] = latency.back() * 1e6;
}
BENCHMARK(BM_StreamLatency)->UseManualTime()->Iterations(2000)->Unit(benchmark::kMicrosecond);

void BM_StreamThroughput(benchmark::State &state) {
    Lines lines;
    const uint32_t frames = 3000;
    std::string input;
    for (uint32_t k = 0; k < frames; k++) input += lines.line(k);
    for (auto _ : state) {
        Receiver rx;
        Stream crowd;
        if (!lines.ok() || !rx.open() || !crowd.start(rx.port)) {
            state.SkipWithError("cannot start crowd stream");
            return;
        }
        std::atomic<uint32_t> got{0};
        double last = 0;
        std::thread reader([&] {
            while (got.load() < frames) {
                double t = rx.receive(3000);
                if (t < 0) break;
                last = t;
                got.fetch_add(1);
            }
        });
        double first = realtime_now();
        bool ok = crowd.write_all(input);
        int status = crowd.finish();
        reader.join();
        if (!ok || status != 0 || got.load() != frames) {
            state.SkipWithError("crowd stream failed or bundles were lost");
            return;
        }
        state.SetIterationTime(last - first);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * frames);
}
BENCHMARK(BM_StreamThroughput)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
