/* The counter-based generator: u = f(instance key, draw index), 24 random bits in [0, 1).
 * The vector form in kernels/stages.h uses the same constants; keep the two in step. */
#ifndef CROWDI_RANDOM_H
#define CROWDI_RANDOM_H

#include <stdint.h>

/* lowbias32 (Chris Wellons' hash prospector): a full-avalanche 32-bit mixer. */
static inline uint32_t crowdi_mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The per-instance key, fixed at creation. */
static inline uint32_t crowdi_instance_key(uint64_t seed, uint64_t instance_id) {
    uint32_t s = crowdi_mix32((uint32_t)seed ^ crowdi_mix32((uint32_t)(seed >> 32) + 0x9e3779b9U));
    return crowdi_mix32(crowdi_mix32(s ^ (uint32_t)instance_id) ^ (uint32_t)(instance_id >> 32));
}

/* The host stream (crowd_instance_random) of an instance: its own key, apart from the engine's. */
static inline uint32_t crowdi_host_key(uint32_t key) { return crowdi_mix32(key ^ 0x68e31da4U); }

static inline float crowdi_draw(uint32_t key, uint32_t index) {
    uint32_t h = crowdi_mix32(key + crowdi_mix32(index));
    return (float)(h >> 8) * 0x1p-24f;
}

#endif
