// The 4×4 vector step's board work, eight lanes at a time in AVX-512 registers: the move (through the row table
// Game2048 builds), the spawn (each lane's own xoshiro256** generator, drawn exactly as `Bitboard.spawnRandomTile`
// draws) and the legal moves of the new board, by the same operations as Bitboard's Swift (the transposes by delta
// swaps, the row-table lookups, the spawn's prefix counts, the mask's neighbour tests), one instruction for eight
// boards. The episode's bookkeeping stays in Swift (`Episode`). Swift compiles for the baseline x86-64 target, which
// has none of these instructions, so it cannot spell them; these functions are compiled for AVX-512 alone and
// called only where the processor has it (`VectorEnvironment` asks `g2048_packed_lanes_available` once). The tests
// hold them to Swift's stages and to the Bitboard lane by lane (Tests/Game2048Tests/PackedLanesTests.swift).
// Branch-free apart from the rare redraw: an instruction count of the kernel is its length. Static inline, so
// that the code is compiled where Swift calls it, with Swift's debug information (Valgrind 3.19 cannot read
// clang's DWARF 5 of a C source).
#ifndef CPACKEDLANES_H
#define CPACKEDLANES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define LANES_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#define LANES_INLINE static inline __attribute__((always_inline)) LANES_TARGET

/// 1 when this processor and build can run `g2048_packed_lanes_step` (x86-64 with AVX-512 F, DQ, BW and VL), else 0.
static inline int g2048_packed_lanes_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl");
}

LANES_INLINE __m512i broadcast(uint64_t x) { return _mm512_set1_epi64((long long)x); }

// Bitboard.transposedBySwaps: two delta swaps, 12 and 24 bits apart.
LANES_INLINE __m512i transposed(__m512i x) {
    __m512i t = _mm512_and_si512(_mm512_xor_si512(x, _mm512_srli_epi64(x, 12)), broadcast(0x0000F0F00000F0F0ull));
    x = _mm512_xor_si512(x, _mm512_xor_si512(t, _mm512_slli_epi64(t, 12)));
    __m512i u = _mm512_and_si512(_mm512_xor_si512(x, _mm512_srli_epi64(x, 24)), broadcast(0x00000000FF00FF00ull));
    return _mm512_xor_si512(x, _mm512_xor_si512(u, _mm512_slli_epi64(u, 24)));
}

// Bitboard.anyBit: the low bit of each nibble set when any bit of the nibble is.
LANES_INLINE __m512i any_bit(__m512i x) {
    __m512i pairs = _mm512_or_si512(x, _mm512_srli_epi64(x, 2));
    return _mm512_and_si512(_mm512_or_si512(pairs, _mm512_srli_epi64(pairs, 1)), broadcast(0x1111111111111111ull));
}

// Bitboard.legalMoves(manyBoards: true): bit 0 up, 1 right, 2 down, 3 left.
LANES_INLINE __m512i legal_moves(__m512i x) {
    const __m512i horizontal = broadcast(0x0111011101110111ull), vertical = broadcast(0x0000111111111111ull);
    __m512i occupied = any_bit(x);
    __m512i empty = _mm512_andnot_si512(occupied, broadcast(0x1111111111111111ull));
    __m512i same_h = _mm512_and_si512(
        _mm512_andnot_si512(any_bit(_mm512_xor_si512(x, _mm512_srli_epi64(x, 4))), occupied), horizontal);
    __m512i same_v = _mm512_and_si512(
        _mm512_andnot_si512(any_bit(_mm512_xor_si512(x, _mm512_srli_epi64(x, 16))), occupied), vertical);
    __m512i left = _mm512_or_si512(same_h, _mm512_and_si512(_mm512_and_si512(empty, _mm512_srli_epi64(occupied, 4)), horizontal));
    __m512i right = _mm512_or_si512(same_h, _mm512_and_si512(_mm512_and_si512(occupied, _mm512_srli_epi64(empty, 4)), horizontal));
    __m512i up = _mm512_or_si512(same_v, _mm512_and_si512(_mm512_and_si512(empty, _mm512_srli_epi64(occupied, 16)), vertical));
    __m512i down = _mm512_or_si512(same_v, _mm512_and_si512(_mm512_and_si512(occupied, _mm512_srli_epi64(empty, 16)), vertical));
    __m512i any = _mm512_or_si512(
        _mm512_or_si512(up, _mm512_slli_epi64(right, 1)), _mm512_or_si512(_mm512_slli_epi64(down, 2), _mm512_slli_epi64(left, 3)));
    any = _mm512_or_si512(any, _mm512_srli_epi64(any, 32));
    any = _mm512_or_si512(any, _mm512_srli_epi64(any, 16));
    any = _mm512_or_si512(any, _mm512_srli_epi64(any, 8));
    any = _mm512_or_si512(any, _mm512_srli_epi64(any, 4));
    return _mm512_and_si512(any, broadcast(0xF));
}

// xoshiro256** (Xoshiro256StarStar.next) on eight generators, one state word a register.
LANES_INLINE __m512i draw(__m512i *s0, __m512i *s1, __m512i *s2, __m512i *s3) {
    __m512i times5 = _mm512_add_epi64(_mm512_slli_epi64(*s1, 2), *s1);
    __m512i rotated = _mm512_rol_epi64(times5, 7);
    __m512i result = _mm512_add_epi64(_mm512_slli_epi64(rotated, 3), rotated);
    __m512i t = _mm512_slli_epi64(*s1, 17);
    *s2 = _mm512_xor_si512(*s2, *s0);
    *s3 = _mm512_xor_si512(*s3, *s1);
    *s1 = _mm512_xor_si512(*s1, *s2);
    *s0 = _mm512_xor_si512(*s0, *s3);
    *s2 = _mm512_xor_si512(*s2, t);
    *s3 = _mm512_rol_epi64(*s3, 45);
    return result;
}

// Bitboard.cellOfEmpty: the cell of the k-th empty cell (from 0), given the prefix counts of empty cells.
LANES_INLINE __m512i cell_of_empty(__m512i k, __m512i prefix) {
    const __m512i low = broadcast(0x0F0F0F0F0F0F0F0Full), high = broadcast(0x8080808080808080ull);
    const __m512i bytes = broadcast(0x0101010101010101ull);
    __m512i threshold = _mm512_mullo_epi64(_mm512_add_epi64(k, broadcast(1)), bytes);
    __m512i even = _mm512_and_si512(prefix, low), odd = _mm512_and_si512(_mm512_srli_epi64(prefix, 4), low);
    __m512i even_at_most = _mm512_andnot_si512(_mm512_sub_epi64(_mm512_or_si512(even, high), threshold), high);
    __m512i odd_at_most = _mm512_and_si512(
        _mm512_andnot_si512(_mm512_sub_epi64(_mm512_or_si512(odd, high), threshold), high), broadcast(0x0080808080808080ull));
    __m512i bits = _mm512_add_epi64(_mm512_srli_epi64(even_at_most, 7), _mm512_srli_epi64(odd_at_most, 7));
    return _mm512_srli_epi64(_mm512_mullo_epi64(bits, bytes), 56);
}

// Lanes 2q and 2q+1's generators are the eight words of register q: the masks of a group's valid lanes for each.
LANES_INLINE __mmask8 pair_mask(__mmask8 lanes, int q) {
    return (__mmask8)(((lanes >> (2 * q)) & 1 ? 0x0F : 0) | ((lanes >> (2 * q + 1)) & 1 ? 0xF0 : 0));
}

LANES_TARGET
static inline int step_group(
    __mmask8 valid, const uint64_t *boards, const uint8_t *actions, const uint8_t *takes, const uint64_t *table,
    uint64_t four_threshold, uint64_t *generators, uint64_t *after_out, uint64_t *next_out, uint64_t *rewards_out,
    uint64_t *facts_out) {
    const __m512i row = broadcast(0xFFFF);
    __m512i board = _mm512_maskz_loadu_epi64(valid, boards);
    __m512i action = _mm512_cvtepu8_epi64(_mm_maskz_loadu_epi8(valid, actions));
    __mmask8 vertical = _mm512_testn_epi64_mask(action, broadcast(1));
    __m512i source = _mm512_mask_blend_epi64(vertical, board, transposed(board));
    __m512i e0 = _mm512_i64gather_epi64(_mm512_and_si512(source, row), (const void *)table, 8);
    __m512i e1 = _mm512_i64gather_epi64(_mm512_and_si512(_mm512_srli_epi64(source, 16), row), (const void *)table, 8);
    __m512i e2 = _mm512_i64gather_epi64(_mm512_and_si512(_mm512_srli_epi64(source, 32), row), (const void *)table, 8);
    __m512i e3 = _mm512_i64gather_epi64(_mm512_srli_epi64(source, 48), (const void *)table, 8);
    // Right (1) and down (2) read the entries' bits 16–31.
    __m512i shift = _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(_mm512_add_epi64(action, broadcast(1)), 1), broadcast(1)), 4);
    __m512i rows = _mm512_or_si512(
        _mm512_or_si512(_mm512_and_si512(_mm512_srlv_epi64(e0, shift), row), _mm512_slli_epi64(_mm512_and_si512(_mm512_srlv_epi64(e1, shift), row), 16)),
        _mm512_or_si512(
            _mm512_slli_epi64(_mm512_and_si512(_mm512_srlv_epi64(e2, shift), row), 32), _mm512_slli_epi64(_mm512_srlv_epi64(e3, shift), 48)));
    __m512i after = _mm512_mask_blend_epi64(vertical, rows, transposed(rows));
    __m512i reward = _mm512_and_si512(
        _mm512_add_epi64(
            _mm512_add_epi64(_mm512_srli_epi64(e0, 32), _mm512_srli_epi64(e1, 32)),
            _mm512_add_epi64(_mm512_srli_epi64(e2, 32), _mm512_srli_epi64(e3, 32))),
        broadcast(0xFFFFFF));
    __m512i highest = _mm512_max_epu64(
        _mm512_max_epu64(_mm512_srli_epi64(e0, 56), _mm512_srli_epi64(e1, 56)),
        _mm512_max_epu64(_mm512_srli_epi64(e2, 56), _mm512_srli_epi64(e3, 56)));
    __mmask8 changed = _mm512_cmpneq_epi64_mask(after, board);
    __m128i take_bytes = _mm_maskz_loadu_epi8(valid, takes);
    __mmask8 spawns = (__mmask8)(_mm_test_epi8_mask(take_bytes, take_bytes) & changed & valid);

    // The spawn, as Bitboard.spawnRandomTile: a 4 or a 2 from the first draw, the cell from the second.
    const __m512i ones = broadcast(0x1111111111111111ull);
    __m512i empty = _mm512_andnot_si512(any_bit(after), ones);
    __m512i prefix = _mm512_mullo_epi64(empty, ones);
    __m512i count = _mm512_mask_blend_epi64(_mm512_cmpeq_epi64_mask(empty, ones), _mm512_srli_epi64(prefix, 60), broadcast(16));
    __m512i g0 = _mm512_maskz_loadu_epi64(pair_mask(valid, 0), generators);
    __m512i g1 = _mm512_maskz_loadu_epi64(pair_mask(valid, 1), generators + 8);
    __m512i g2 = _mm512_maskz_loadu_epi64(pair_mask(valid, 2), generators + 16);
    __m512i g3 = _mm512_maskz_loadu_epi64(pair_mask(valid, 3), generators + 24);
    // Word j of lanes 0–3 from g0:g1, of lanes 4–7 from g2:g3.
    __m512i s[4];
    for (int j = 0; j < 4; j++) {
        __m512i index = _mm512_setr_epi64(j, 4 + j, 8 + j, 12 + j, j, 4 + j, 8 + j, 12 + j);
        __m512i low_lanes = _mm512_permutex2var_epi64(g0, index, g1), high_lanes = _mm512_permutex2var_epi64(g2, index, g3);
        s[j] = _mm512_shuffle_i64x2(low_lanes, high_lanes, 0x44);
    }
    __m512i t0 = s[0], t1 = s[1], t2 = s[2], t3 = s[3];
    __m512i four_draw = draw(&t0, &t1, &t2, &t3);
    __mmask8 fours = _mm512_cmplt_epu64_mask(_mm512_srli_epi64(four_draw, 11), broadcast(four_threshold));
    __m512i exponent = _mm512_mask_blend_epi64(fours, broadcast(1), broadcast(2));
    __m512i cell_draw = draw(&t0, &t1, &t2, &t3);
    // uniform(below: count), count ≤ 16: the high and low words of the 128-bit product from 32-bit halves.
    __m512i product_low = _mm512_mullo_epi64(cell_draw, count);
    __m512i high_part = _mm512_mul_epu32(_mm512_srli_epi64(cell_draw, 32), count);
    __m512i low_part = _mm512_mul_epu32(cell_draw, count);
    __m512i k = _mm512_srli_epi64(_mm512_add_epi64(high_part, _mm512_srli_epi64(low_part, 32)), 32);
    if (_mm512_mask_cmplt_epu64_mask(spawns, product_low, count)) return 1;
    __m512i cell = cell_of_empty(k, prefix);
    __m512i spawned = _mm512_or_si512(after, _mm512_sllv_epi64(exponent, _mm512_slli_epi64(cell, 2)));
    __m512i next = _mm512_mask_blend_epi64(spawns, after, spawned);
    __m512i facts = _mm512_or_si512(highest, _mm512_maskz_mov_epi64(changed, broadcast(1 << 8)));
    __m512i spawn_facts = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi64(cell, 16), _mm512_slli_epi64(exponent, 24)), _mm512_slli_epi64(legal_moves(next), 32));
    facts = _mm512_mask_or_epi64(facts, spawns, facts, spawn_facts);
    _mm512_mask_storeu_epi64(after_out, valid, after);
    _mm512_mask_storeu_epi64(next_out, valid, next);
    _mm512_mask_storeu_epi64(rewards_out, valid, reward);
    _mm512_mask_storeu_epi64(facts_out, valid, facts);

    // The generators of the lanes that spawned, back into their pairs.
    s[0] = _mm512_mask_blend_epi64(spawns, s[0], t0);
    s[1] = _mm512_mask_blend_epi64(spawns, s[1], t1);
    s[2] = _mm512_mask_blend_epi64(spawns, s[2], t2);
    s[3] = _mm512_mask_blend_epi64(spawns, s[3], t3);
    const __m512i low_half = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), high_half = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    __m512i words01_low = _mm512_permutex2var_epi64(s[0], low_half, s[1]), words23_low = _mm512_permutex2var_epi64(s[2], low_half, s[3]);
    __m512i words01_high = _mm512_permutex2var_epi64(s[0], high_half, s[1]), words23_high = _mm512_permutex2var_epi64(s[2], high_half, s[3]);
    _mm512_mask_storeu_epi64(generators, pair_mask(valid, 0), _mm512_permutex2var_epi64(words01_low, first, words23_low));
    _mm512_mask_storeu_epi64(generators + 8, pair_mask(valid, 1), _mm512_permutex2var_epi64(words01_low, second, words23_low));
    _mm512_mask_storeu_epi64(generators + 16, pair_mask(valid, 2), _mm512_permutex2var_epi64(words01_high, first, words23_high));
    _mm512_mask_storeu_epi64(generators + 24, pair_mask(valid, 3), _mm512_permutex2var_epi64(words01_high, second, words23_high));
    return 0;
}

/// Steps `count` lanes (at most 256): lane i's packed board `boards[i]` moves in direction `actions[i]` (0 up,
/// 1 right, 2 down, 3 left) through `table` (the 65 536 row entries), giving `after[i]`, `rewards[i]` and
/// `facts[i]` (bits 0–7 the largest merged exponent, bit 8 set when the board changed). A lane with `takes[i]`
/// nonzero whose board changed also spawns: one draw from its generator (`generators[4i…4i+3]`, advanced in
/// place) decides a 4 (below `four_threshold` after dropping 11 bits), the next picks the empty cell; `next[i]`
/// is the board after the spawn, and `facts[i]` gets the cell in bits 16–23, the exponent in bits 24–31 and the
/// new board's legal moves in bits 32–35. Other lanes' `next[i]` is `after[i]` and their generators are untouched.
///
/// Returns a bit for each group of eight lanes (lanes 8g…8g+7) left undone because a cell draw fell where the
/// unbiased draw must draw again (a chance of about 2^-60 a spawn): nothing of that group was written, and the
/// caller steps it the scalar way.
static inline uint32_t g2048_packed_lanes_step(
    size_t count, const uint64_t *boards, const uint8_t *actions, const uint8_t *takes, const uint64_t *table,
    uint64_t four_threshold, uint64_t *generators, uint64_t *after, uint64_t *next, uint64_t *rewards, uint64_t *facts) {
    uint32_t undone = 0;
    for (size_t start = 0, group = 0; start < count && group < 32; start += 8, group++) {
        size_t left = count - start;
        __mmask8 valid = (__mmask8)(left >= 8 ? 0xFF : (1u << left) - 1);
        if (step_group(
                valid, boards + start, actions + start, takes + start, table, four_threshold, generators + 4 * start,
                after + start, next + start, rewards + start, facts + start))
            undone |= 1u << group;
    }
    return undone;
}

// One board's spawn cell with BMI2 (PDEP picks the k-th set bit) and POPCNT: the spawn sits on the chain of a single
// game's steps (the move waits on the spawn's board), where Swift's baseline code takes two multiplies and a dozen
// operations to find the cell.
#define CELL_TARGET __attribute__((target("bmi2,popcnt")))

/// 1 when this processor has BMI2 and POPCNT (`g2048_spawn_cell` runs), else 0. Asked on every spawn: the answer is
/// kept (relaxed atomics, so that threads asking first at once agree without a race), and a spawn pays a load and a
/// test where a Swift global would pay a call to `swift_once`.
static inline int g2048_spawn_cell_available(void) {
    static int known = -1;
    int value = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (__builtin_expect(value < 0, 0)) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
        __atomic_store_n(&known, value, __ATOMIC_RELAXED);
    }
    return value;
}

/// The cell a spawn takes, picked as `Bitboard.spawnRandomTile` picks it: `empty` has bit 4c set for each empty cell c
/// (at least one) and `draw` is the generator's next output; with n the number of empty cells, the cell is the k-th
/// empty one (from 0) for k the high word of the 128-bit product `draw · n`. Returns 16 (no cell) when the product's
/// low word is below n, where that draw may have to be drawn again: the caller finishes it the scalar way.
CELL_TARGET static inline uint64_t g2048_spawn_cell(uint64_t empty, uint64_t draw) {
    uint64_t n = (uint64_t)__builtin_popcountll(empty);
    unsigned __int128 product = (unsigned __int128)draw * n;
    if ((uint64_t)product < n) return 16;
    uint64_t k = (uint64_t)(product >> 64);
    return (uint64_t)__builtin_ctzll(_pdep_u64(1ull << k, empty)) >> 2;
}

#else

// Other processors take the scalar passes; the step is never called there.
static inline int g2048_packed_lanes_available(void) { return 0; }
static inline int g2048_spawn_cell_available(void) { return 0; }
static inline uint64_t g2048_spawn_cell(uint64_t empty, uint64_t draw) {
    (void)empty; (void)draw;
    return 16;
}

static inline uint32_t g2048_packed_lanes_step(
    size_t count, const uint64_t *boards, const uint8_t *actions, const uint8_t *takes, const uint64_t *table,
    uint64_t four_threshold, uint64_t *generators, uint64_t *after, uint64_t *next, uint64_t *rewards, uint64_t *facts) {
    (void)boards; (void)actions; (void)takes; (void)table; (void)four_threshold; (void)generators;
    (void)after; (void)next; (void)rewards; (void)facts;
    return count == 0 ? 0 : 0xFFFFFFFFu;
}

#endif

#ifdef __cplusplus
}
#endif

#endif
