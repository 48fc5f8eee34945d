#include "ticker.h"

#include <time.h>

#include "diag.h"

double tool_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ticker_tick(world *w, float dt, double *seconds) {
    double t0 = tool_now();
    crowd_result res = crowd_tick(w->engine, dt);
    *seconds += tool_now() - t0;
    return res == CROWD_OK ? TOOL_OK : tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_tick");
}
