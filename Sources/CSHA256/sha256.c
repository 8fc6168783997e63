// SHA-256 (FIPS 180-4) whose compression function runs on the x86-64 SHA extensions. The
// buffering and padding are the standard ones; only `blocks` differs from a portable
// implementation. On any other processor `csha256_available` is 0 and nothing else is called.
#include "CSHA256.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

int csha256_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

/// Runs the compression function over `count` 64-byte blocks at `data`.
__attribute__((target("sha,sse4.1,ssse3")))
static void blocks(uint32_t state[8], const uint8_t *data, size_t count) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i state1 = _mm_loadu_si128((const __m128i *)&state[4]);
    tmp = _mm_shuffle_epi32(tmp, 0xB1);             // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);       // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);    // CDGH

    while (count-- > 0) {
        const __m128i abef = state0, cdgh = state1;
        __m128i words[4];
        for (int i = 0; i < 4; i++) {
            words[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byte_swap);
        }
        for (int group = 0; group < 16; group++) {
            __m128i message;
            if (group < 4) {
                message = words[group];
            } else {
                // w[t..t+3] from the four groups before it: msg1 adds sigma0 of w[t-15..] to
                // w[t-16..], the add brings in w[t-7..t-4], msg2 adds sigma1 of w[t-2..].
                __m128i previous = words[(group - 1) & 3];
                __m128i scheduled = _mm_sha256msg1_epu32(words[group & 3], words[(group - 3) & 3]);
                scheduled = _mm_add_epi32(scheduled, _mm_alignr_epi8(previous, words[(group - 2) & 3], 4));
                message = _mm_sha256msg2_epu32(scheduled, previous);
                words[group & 3] = message;
            }
            __m128i sum = _mm_add_epi32(message, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, sum);
            sum = _mm_shuffle_epi32(sum, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, sum);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
        data += 64;
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);          // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);       // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);    // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);       // HGFE
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

#else

int csha256_available(void) { return 0; }

static void blocks(uint32_t state[8], const uint8_t *data, size_t count) {
    (void)state;
    (void)data;
    (void)count;
}

#endif

void csha256_init(csha256_state *state) {
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(state->state, initial, sizeof initial);
    state->length = 0;
    state->used = 0;
}

void csha256_update(csha256_state *state, const uint8_t *bytes, size_t count) {
    if (count == 0) return;
    state->length += (uint64_t)count;
    if (state->used > 0) {
        size_t take = 64 - state->used < count ? 64 - state->used : count;
        memcpy(state->buffer + state->used, bytes, take);
        state->used += take;
        bytes += take;
        count -= take;
        if (state->used < 64) return;
        blocks(state->state, state->buffer, 1);
        state->used = 0;
    }
    if (count >= 64) {
        blocks(state->state, bytes, count / 64);
        bytes += count - count % 64;
        count %= 64;
    }
    if (count > 0) {
        memcpy(state->buffer, bytes, count);
        state->used = count;
    }
}

void csha256_final(csha256_state *state, uint8_t out[32]) {
    uint64_t bits = state->length * 8;
    uint8_t padding[72] = {0x80};
    size_t pad = state->used < 56 ? 56 - state->used : 120 - state->used;
    for (int i = 0; i < 8; i++) padding[pad + i] = (uint8_t)(bits >> (56 - 8 * i));
    uint64_t length = state->length;
    csha256_update(state, padding, pad + 8);
    state->length = length;
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(state->state[i] >> 24);
        out[4 * i + 1] = (uint8_t)(state->state[i] >> 16);
        out[4 * i + 2] = (uint8_t)(state->state[i] >> 8);
        out[4 * i + 3] = (uint8_t)state->state[i];
    }
}
