/* crowd_lipsync_rms (crowd.h, "Lip sync level"). */
#include <math.h>

#include "crowd.h"

float crowd_lipsync_rms(const float *samples, size_t frames, uint32_t channels) {
    if (!samples || frames == 0 || channels == 0) return 0.0f;
    size_t n = frames * channels;
    /* Eight partial sums in a fixed pattern (element i goes to sum i % 8), added in a fixed
     * tree: plain C arithmetic, so no target or compiler may reorder it (no -ffast-math), and
     * the loop vectorises as it stands. A float's square is exact in double. */
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) s[k] += (double)samples[i + k] * (double)samples[i + k];
    for (int k = 0; i < n; i++, k++) s[k] += (double)samples[i] * (double)samples[i];
    double sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    double rms = sqrt(sum / ((double)channels * (double)frames));
    return isfinite(rms) ? (float)rms : 0.0f;
}
