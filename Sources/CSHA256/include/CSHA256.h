#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256 on the processor's SHA extensions (x86-64 SHA-NI), for the kernel's hot hashing.
/// `csha256_available()` says whether this processor has them; the other functions must only be
/// called when it returns 1 (the caller falls back to another implementation otherwise).
typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t buffer[64];
    size_t used;
} csha256_state;

/// 1 when the processor runs the SHA extensions this implementation uses, else 0.
int csha256_available(void);
/// Starts a hash.
void csha256_init(csha256_state *state);
/// Adds `count` bytes at `bytes` (which may be NULL when `count` is 0).
void csha256_update(csha256_state *state, const uint8_t *bytes, size_t count);
/// Ends the hash, writing the 32-byte digest to `out`.
void csha256_final(csha256_state *state, uint8_t out[32]);

#endif
