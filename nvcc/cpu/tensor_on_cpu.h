// tensor_device.cuh on the CPU, for kernels run as fibers (fibers_on_cpu.h): the warp-wide
// instructions exchange the lanes' registers through a per-warp table between two warp barriers,
// and the element placements are the PTX ISA's, as kernels-gpu/src/shapes/mma_layout.rs states them.
//
// mma.sync is modelled as each D element's 16 products and its C summed in double and rounded to
// f32 once. The hardware's order and precision inside one mma are not specified, so the model is
// exact (and the checks that use it meaningful) only where every order gives the same f32:
// integer inputs whose sums stay within 2^24, which is what twin_on_cpu.cpp feeds it, as the Rust
// model (models/mma_sync.rs) demands.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>

#include "cuda_on_cpu.h"
#include "fibers_on_cpu.h"

#define LAB_TENSOR_DEVICE_CUH

namespace lab {

namespace cpu {

// What the lanes of one warp hand each other in one collective instruction.
struct WarpExchange {
    unsigned address[32];
    unsigned a[32][4];
    unsigned b[32][2];
    float c[32][4];
    // The A and B of the current mma, decoded from the lanes' fragments once for the warp by the
    // first lane past the barrier.
    bool decoded;
    float am[16][16], bm[16][8];
};
// One per warp, made when a warp first asks. A deque, so that growing it keeps the references
// other warps' fibers hold across their warp barriers; fibers share one OS thread, so no lock.
inline std::deque<WarpExchange> warp_exchanges;

inline WarpExchange& this_warp() {
    const std::size_t warp = threadIdx.x / 32;
    if (warp_exchanges.size() <= warp) warp_exchanges.resize(warp + 1);
    return warp_exchanges[warp];
}

// bf16 of a small integer (exact: 8 significant bits), models/mma_sync.rs `bf16_of_int`.
inline std::uint16_t bf16_of_int(int x) {
    const float f = float(x);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return std::uint16_t(bits >> 16);
}

inline float bf16_to_float(std::uint16_t bits) {
    const std::uint32_t word = std::uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &word, 4);
    return f;
}

inline std::uint16_t shared_b16(unsigned byte_address) {
    if (byte_address % 2 != 0 || byte_address + 2 > sizeof lab_dyn_smem) fail("ldmatrix: row outside shared memory");
    std::uint16_t v;
    std::memcpy(&v, reinterpret_cast<const char*>(lab_dyn_smem) + byte_address, 2);
    return v;
}

// ldmatrix.x4 with or without .trans: lane 8j + i gives the address of row i of matrix j; half h
// of register j of lane l is element (l/4, 2(l%4) + h) of matrix j (mma_layout.rs
// `ldmatrix_element`), or with .trans element (2(l%4) + h, l/4) (`ldmatrix_trans_element`).
inline void ldmatrix(unsigned addr, unsigned (&r)[4], bool trans) {
    if (addr % 16 != 0) fail("ldmatrix: row address not 16-byte aligned");
    WarpExchange& w = this_warp();
    const unsigned lane = threadIdx.x % 32;
    w.address[lane] = addr;
    warp_sync();
    for (unsigned j = 0; j < 4; ++j) {
        r[j] = 0;
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned row = trans ? 2 * (lane % 4) + half : lane / 4;
            const unsigned col = trans ? lane / 4 : 2 * (lane % 4) + half;
            r[j] |= unsigned(shared_b16(w.address[8 * j + row] + 2 * col)) << (16 * half);
        }
    }
    warp_sync();
}

// Element (r, k) of the 16 x 16 A the warp's fragments hold: mma_layout.rs `a_element` inverted
// (lane 4(r%8) + (k%8)/2, register r/8 + 2(k/8), half k%2).
inline float a_of(const WarpExchange& w, unsigned r, unsigned k) {
    const unsigned word = w.a[4 * (r % 8) + (k % 8) / 2][r / 8 + 2 * (k / 8)];
    return bf16_to_float(std::uint16_t(word >> (16 * (k % 2))));
}

// Element (k, n) of the 16 x 8 B: `b_element` inverted (lane 4n + (k%8)/2, register k/8, half
// k%2).
inline float b_of(const WarpExchange& w, unsigned k, unsigned n) {
    const unsigned word = w.b[4 * n + (k % 8) / 2][k / 8];
    return bf16_to_float(std::uint16_t(word >> (16 * (k % 2))));
}

}  // namespace cpu

// gpu.rs `opaque`: on the CPU, the value.
inline unsigned opaque(unsigned x) { return x; }

inline void ldmatrix_x4(unsigned addr, unsigned (&r)[4]) { cpu::ldmatrix(addr, r, false); }
inline void ldmatrix_x4_trans(unsigned addr, unsigned (&r)[4]) { cpu::ldmatrix(addr, r, true); }

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, D = A*B + D: register q of lane l is
// element (l/4 + 8(q/2), 2(l%4) + q%2) of D (mma_layout.rs `d_element`).
inline void mma_bf16_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    cpu::WarpExchange& w = cpu::this_warp();
    const unsigned lane = threadIdx.x % 32;
    std::memcpy(w.a[lane], a, sizeof a);
    std::memcpy(w.b[lane], b, sizeof b);
    std::memcpy(w.c[lane], d, sizeof d);
    w.decoded = false;
    cpu::warp_sync();
    if (!w.decoded) {
        for (unsigned r = 0; r < 16; ++r)
            for (unsigned k = 0; k < 16; ++k) w.am[r][k] = cpu::a_of(w, r, k);
        for (unsigned k = 0; k < 16; ++k)
            for (unsigned n = 0; n < 8; ++n) w.bm[k][n] = cpu::b_of(w, k, n);
        w.decoded = true;
    }
    for (unsigned q = 0; q < 4; ++q) {
        const unsigned row = lane / 4 + 8 * (q / 2), col = 2 * (lane % 4) + q % 2;
        double sum = w.c[lane][q];
        for (unsigned k = 0; k < 16; ++k) sum += double(w.am[row][k]) * w.bm[k][col];
        d[q] = float(sum);
    }
    // No lane deposits its next operands before every lane has read these.
    cpu::warp_sync();
}

inline void cp_async_bf16x8(unsigned dst, const std::uint16_t* src, unsigned index, bool inside) {
    queue_copy(dst, reinterpret_cast<const float*>(src + (inside ? index : 0u)), 4, inside);
}

inline std::uint16_t load_bf16(const std::uint16_t* p, unsigned index) { return p[index]; }

inline unsigned pack_bf16x2(std::uint16_t lo, std::uint16_t hi) { return unsigned(lo) | (unsigned(hi) << 16); }

inline void shared_store4(unsigned addr, const unsigned (&v)[4]) {
    if (addr % 16 != 0 || addr + 16 > sizeof lab_dyn_smem) fail("st.shared.v4: address misaligned or out of range");
    std::memcpy(reinterpret_cast<char*>(lab_dyn_smem) + addr, v, 16);
}

}  // namespace lab
