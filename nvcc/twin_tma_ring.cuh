// The TMA ring both warp-specialized GEMMs share, in CUDA C++: kernels-gpu/src/kernels/sm90a/tma_ring.rs (a
// line's shared-memory layout and its descriptors: sections/gemm_wgmma.rs). A ring of STAGES slots, each a
// 64-deep K slice of A (BM x 64) and B (64 x BN) as TMA writes them with the 128-byte swizzle,
// guarded by a "full" mbarrier (TMA's bytes) and an "empty" one (the consumers' release: arrivals,
// or a count); the fills walk every K slice of every output tile of the block's persistent walk.
#pragma once

#include "hopper_device.cuh"
#include "lab_device.cuh"

namespace lab::ring {

// sections/gemm_wgmma.rs: the K slice, the wgmma's rows and depth, a warpgroup, the swizzle.
constexpr unsigned WGEMM_BK = 64;
constexpr unsigned WGEMM_M = 64;
constexpr unsigned WGEMM_K = 16;
constexpr unsigned WGEMM_WARPGROUP = 128;
constexpr unsigned WARPGROUP_WARPS = WGEMM_WARPGROUP / 32;
constexpr unsigned SWIZZLE_BYTES = 128;
constexpr unsigned SWIZZLE_ATOM = 8 * SWIZZLE_BYTES;
constexpr unsigned B_BOX_COLS = SWIZZLE_BYTES / 2;
constexpr unsigned PRODUCER_REGS = 40;
constexpr unsigned TILE_GROUP_ROWS = 16;
// sections/c_staging.rs `C_STAGE_*` and limits.rs `MAX_SHARED_OPT_IN`: C's staging, a warp's 16 rows handed
// to a storer warp a 128-column chunk at a time through a buffer of its own, rows 544 bytes apart; the first
// chunk of a tile staged, the rest stored by each thread.
constexpr unsigned C_STAGE_COLS = 128;
constexpr unsigned C_STAGE_BUFFERS = 1;
constexpr unsigned C_STAGE_ROW_BYTES = 544;
constexpr unsigned C_STAGED_CHUNKS = 1;
// A handoff's words: "full" mbarrier at 0, "empty" mbarrier, the staged rows' first row and first column.
constexpr unsigned C_HANDOFF_EMPTY = 8;
constexpr unsigned C_HANDOFF_ROW = 16;
constexpr unsigned C_HANDOFF_COL = 20;
constexpr unsigned C_HANDOFF_BYTES = C_HANDOFF_COL + 4;
constexpr unsigned C_HANDOFF_DONE = 0xffffffffu;
constexpr unsigned C_WARPS_PER_STORER = 3;
constexpr unsigned C_STAGE_BUFFER_BYTES = 16 * C_STAGE_ROW_BYTES;
// c_staging.rs `C_STORE_PAUSE_NS`: a storer warp's pause after each row it stores (0: none).
constexpr unsigned C_STORE_PAUSE_NS = 0;
constexpr unsigned MAX_SHARED_OPT_IN = 227 * 1024;

// sections/gemm_wgmma.rs `WgemmVariant`: the layout of a line's ring (offsets from its aligned base).
template <unsigned BM_, unsigned BN_, unsigned STAGES_, unsigned CONSUMERS_, unsigned CLUSTER_ = 1, bool TURNS_ = false>
struct Line {
    static constexpr unsigned BM = BM_, BN = BN_, STAGES = STAGES_, CONSUMERS = CONSUMERS_, CLUSTER = CLUSTER_;
    static constexpr unsigned CONSUMER_WARPS = CONSUMERS * WARPGROUP_WARPS;
    // sections/gemm_wgmma.rs `ping_pong`, `tile_warps` and `slot_readers`: consumers taking whole tiles in turn (a
    // `wgmma_turns` line), each tile computed, and each fill read, by one warpgroup's warps.
    static constexpr bool PING_PONG = TURNS_;
    // `row_blocks`: the m64 MMAs a consumer runs per k16 step, one per 64 of its rows.
    static constexpr unsigned ROW_BLOCKS = PING_PONG ? BM / WGEMM_M : 1;
    static constexpr unsigned TILE_WARPS = PING_PONG ? WARPGROUP_WARPS : CONSUMER_WARPS;
    static constexpr unsigned SLOT_READERS = TILE_WARPS;
    static constexpr unsigned A_SLOT_BYTES = BM * WGEMM_BK * 2;
    static constexpr unsigned B_SLOT_BYTES = WGEMM_BK * BN * 2;
    static constexpr unsigned SLOT_BYTES = A_SLOT_BYTES + B_SLOT_BYTES;
    // c_staging.rs `c_stage_base` and `stages_c`: C's handoffs and staging buffers after the barriers, 128-byte
    // aligned, on lines of shared tiles, one block a cluster, no more consumer warps than the storers serve, tile
    // rows that hold the staged chunks, and room under the opt-in limit.
    static constexpr unsigned C_STAGE_BASE = (STAGES * SLOT_BYTES + 8 * 2 * STAGES + 127) / 128 * 128;
    // `c_handoff`, `c_loads_done` and `c_stage`: each consumer warp's handoff (two mbarriers, two words), the word
    // the producer sets after its last load, then the buffers.
    static constexpr unsigned C_LOADS_DONE = C_STAGE_BASE + CONSUMER_WARPS * C_HANDOFF_BYTES;
    static constexpr unsigned C_BUFFERS_BASE = (C_LOADS_DONE + 4 + 127) / 128 * 128;
    static constexpr bool STAGES_C = !PING_PONG && CLUSTER == 1 &&
                                     CONSUMER_WARPS <= (WARPGROUP_WARPS - 1) * C_WARPS_PER_STORER &&
                                     BN % C_STAGE_COLS == 0 &&
                                     BN / C_STAGE_COLS >= C_STAGED_CHUNKS && C_STAGED_CHUNKS % C_STAGE_BUFFERS == 0 &&
                                     C_BUFFERS_BASE + CONSUMER_WARPS * C_STAGE_BUFFERS * C_STAGE_BUFFER_BYTES +
                                             SWIZZLE_ATOM <=
                                         MAX_SHARED_OPT_IN;
    // The ring, its barriers, C's staging where the line has it, and an atom of slack to align the ring
    // (`dynamic_shared_bytes`).
    static constexpr unsigned SHARED_BYTES =
        (STAGES_C ? C_BUFFERS_BASE + CONSUMER_WARPS * C_STAGE_BUFFERS * C_STAGE_BUFFER_BYTES
                  : STAGES * SLOT_BYTES + 8 * 2 * STAGES) +
        SWIZZLE_ATOM;
    __device__ static constexpr unsigned c_handoff(unsigned warp) { return C_STAGE_BASE + warp * C_HANDOFF_BYTES; }
    __device__ static constexpr unsigned c_stage(unsigned warp, unsigned buffer) {
        return C_BUFFERS_BASE + (warp * C_STAGE_BUFFERS + buffer) * C_STAGE_BUFFER_BYTES;
    }
    __device__ static constexpr unsigned a_slot(unsigned s) { return s * SLOT_BYTES; }
    __device__ static constexpr unsigned b_slot(unsigned s) { return s * SLOT_BYTES + A_SLOT_BYTES; }
    __device__ static constexpr unsigned full_barrier(unsigned s) { return STAGES * SLOT_BYTES + 8 * s; }
    __device__ static constexpr unsigned empty_barrier(unsigned s) { return STAGES * SLOT_BYTES + 8 * (STAGES + s); }
};

// sections/gemm_wgmma.rs `consumer_regs`: what the register file leaves a consumer thread after the
// producer's PRODUCER_REGS, in multiples of 8, at most 240.
__host__ __device__ constexpr unsigned consumer_regs(unsigned consumers) {
    const unsigned left = (65536 - PRODUCER_REGS * WGEMM_WARPGROUP) / (consumers * WGEMM_WARPGROUP);
    return (left > 240 ? 240 : left) / 8 * 8;
}

// block_order.rs `grouped_tile` at sections/gemm_wgmma.rs's TILE_GROUP_ROWS (`tile_of`): the output tile
// that position `index` of the persistent walk takes.
struct TileAt {
    unsigned row, col;
};
__device__ __forceinline__ TileAt tile_of(unsigned index, unsigned rows, unsigned cols) {
    const unsigned group_tiles = TILE_GROUP_ROWS * cols;
    const unsigned first_row = index / group_tiles * TILE_GROUP_ROWS;
    const unsigned in_group = rows - first_row < TILE_GROUP_ROWS ? rows - first_row : TILE_GROUP_ROWS;
    const unsigned within = index % group_tiles;
    return {first_row + within % in_group, within / in_group};
}

// tma_ring.rs `Ring`: a slot and the parity of its barriers' phase.
struct Position {
    unsigned slot, phase;
    template <unsigned STAGES>
    __device__ __forceinline__ Position next() const {
        return slot + 1 == STAGES ? Position{0, phase ^ 1} : Position{slot + 1, phase};
    }
    // tma_ring.rs `Ring::advance`: `fills` fills on.
    template <unsigned STAGES>
    __device__ __forceinline__ Position advance(unsigned fills) const {
        const unsigned to = slot + fills;
        return Position{to % STAGES, phase ^ ((to / STAGES) & 1)};
    }
};

// sections/wgemm_walk.rs `KSplit`: a tile's K slices cut into `splits` units of `unit_steps` (the
// last shorter); one unit of every slice where K is whole (k_slices 0, or at least k_steps).
struct KSplit {
    unsigned unit_steps, splits;
    __device__ __forceinline__ static KSplit of(unsigned k_steps, unsigned k_slices) {
        if (k_slices == 0 || k_slices >= k_steps) return {k_steps, 1};
        return {k_slices, (k_steps + k_slices - 1) / k_slices};
    }
};

// sections/wgemm_tail.rs `StreamTail`: the tiles past the last whole wave of `blocks` blocks, their K
// slices laid end to end and shared out in one run per block (at most TAIL_PIECES pieces of tiles).
constexpr unsigned TAIL_PIECES = 2;
struct TailPiece {
    unsigned tile, first, steps, index, pieces;
};
struct StreamTail {
    unsigned from, tiles, k_steps, blocks;
    // In 32 bits: the host streams only a tail whose slices times blocks fit (`fits`).
    __device__ __forceinline__ unsigned slices() const { return tiles * k_steps; }
    // `run_start`: the first tail slice of block b's run.
    __device__ __forceinline__ unsigned run_start(unsigned b) const { return b * slices() / blocks; }
    // `block_of`: the block whose run holds tail slice s.
    __device__ __forceinline__ unsigned block_of(unsigned s) const { return ((s + 1) * blocks - 1) / slices(); }
    // `piece`: piece j of block b's run in the order the block runs them (its later tile first: the
    // blocks then share two fronts of K slices); false where the run has fewer.
    __device__ __forceinline__ bool piece(unsigned b, unsigned j, TailPiece& out) const {
        const unsigned lo = run_start(b), hi = run_start(b + 1), k = k_steps;
        if (lo >= hi || j > (hi - 1) / k - lo / k) return false;
        const unsigned t = (hi - 1) / k - j, tile_end = (t + 1) * k;
        const unsigned start = lo > t * k ? lo : t * k, end = hi < tile_end ? hi : tile_end;
        const unsigned first_block = block_of(t * k);
        out = {from + t, start - t * k, end - start, b - first_block, block_of(tile_end - 1) - first_block + 1};
        return true;
    }
    // `slot`: the scratch slot of piece `index` of tail tile `tile`.
    __device__ __forceinline__ unsigned slot(unsigned tile, unsigned index) const {
        const unsigned t = tile - from, b = block_of(t * k_steps) + index;
        return b * TAIL_PIECES + (t - run_start(b) / k_steps);
    }
};

// tma_ring.rs `Unit`: a work unit of the walk: its tile, which of the tile's units it is and how many
// it has (1: whole), and its first K slice and slice count (none past the walk).
struct Unit {
    unsigned tile, split, pieces, first, steps;
};

// tma_ring.rs `Fill`: the ring position a fill goes to, its work unit (index in the walk, first
// slice and count, the tile's origin) and the unit's slice it loads.
struct Fill {
    Position at;
    unsigned unit, ks, first, steps;
    int row0, col0;
};

// tma_ring.rs `RingProblem`: what every role knows of the problem.
template <class L>
struct Problem {
    unsigned ring;
    unsigned rows, cols;
    unsigned k_steps;
    KSplit split;
    bool streamed;
    StreamTail tail;
    unsigned rank;

    // tma_ring.rs `set_up`: the ring of this block's dynamic shared memory, its barriers
    // initialized by thread 0 (empty ones to COUNTED ? a count of 0 : the consumer warps'
    // arrivals) and visible to the block, the tiles' K cut into units of k_slices slices, the last
    // partial wave streamed over the grid from tile `stream` on where that is not 0 (the host passes
    // StreamTail::of's `from`). Every thread calls it (it ends in a barrier).
    template <bool COUNTED>
    __device__ __forceinline__ static Problem set_up(unsigned m, unsigned n, unsigned k, unsigned k_slices,
                                                     unsigned stream) {
        const unsigned ring = (shared_address(lab_dyn_smem) + SWIZZLE_ATOM - 1) & ~(SWIZZLE_ATOM - 1);
        if (threadIdx.x == 0) {
            for (unsigned s = 0; s < L::STAGES; ++s) {
                hopper::mbarrier_init(ring + L::full_barrier(s), 1);
                if (COUNTED)
                    hopper::shared_store_u32(ring + L::empty_barrier(s), 0);
                else
                    hopper::mbarrier_init(ring + L::empty_barrier(s), L::SLOT_READERS * L::CLUSTER);
            }
            if constexpr (L::STAGES_C)
                for (unsigned w = 0; w < L::CONSUMER_WARPS; ++w) {
                    hopper::mbarrier_init(ring + L::c_handoff(w), 1);
                    hopper::mbarrier_init(ring + L::c_handoff(w) + C_HANDOFF_EMPTY, 1);
                }
            if constexpr (L::STAGES_C && C_STORE_PAUSE_NS > 0) hopper::shared_store_u32(ring + L::C_LOADS_DONE, 0);
            hopper::fence_barrier_init();
        }
        unsigned rank = 0;
        if (L::CLUSTER > 1) {
            hopper::cluster_sync();
            rank = hopper::cluster_ctarank();
        } else {
            __syncthreads();
        }
        const unsigned k_steps = (k + WGEMM_BK - 1) / WGEMM_BK;
        const unsigned rows = (m + L::BM - 1) / L::BM, cols = (n + L::BN - 1) / L::BN;
        return {ring, rows, cols, k_steps, KSplit::of(k_steps, k_slices), stream != 0,
                StreamTail{stream, rows * cols - stream, k_steps, gridDim.x}, rank};
    }

    // tma_ring.rs `finish`: in a cluster, no block exits while the other may still reach it.
    __device__ __forceinline__ void finish() const {
        if (L::CLUSTER > 1) hopper::cluster_sync();
    }

    // tma_ring.rs `walker`, `walkers` and `tile_at`: a cluster's blocks walk units together; in a
    // cluster of two, rank 0 takes the upper tile of a pair and rank 1 the lower.
    __device__ __forceinline__ unsigned walker() const { return blockIdx.x / L::CLUSTER; }
    __device__ __forceinline__ unsigned walkers() const { return gridDim.x / L::CLUSTER; }
    __device__ __forceinline__ TileAt tile_at(unsigned tile) const {
        if (L::CLUSTER == 1) return tile_of(tile, rows, cols);
        const TileAt pair = tile_of(tile, (rows + L::CLUSTER - 1) / L::CLUSTER, cols);
        return {pair.row * L::CLUSTER + rank, pair.col};
    }

    // tma_ring.rs `release`: slot s handed back to the producer of every block of the cluster.
    __device__ __forceinline__ void release(unsigned s) const {
        if (L::CLUSTER == 1) {
            hopper::mbarrier_arrive(empty(s));
        } else {
            for (unsigned r = 0; r < L::CLUSTER; ++r) hopper::mbarrier_arrive_in(empty(s), r);
        }
    }

    // tma_ring.rs `units`, `tiles` and `unit`: every tile (pair of tiles in a cluster of two) times its
    // units along K; unit u is split u / tiles of tile u % tiles; with a streamed tail, the whole waves'
    // tiles, then piece (u - from) / blocks of block (u - from) % blocks's run; none (no slices) past.
    __device__ __forceinline__ unsigned tiles() const { return (rows + L::CLUSTER - 1) / L::CLUSTER * cols; }
    // `units_of` and `unit_of`: the same for a walk known to stream its tail (STREAMED) or not, so that a
    // consumer loop built for one holds no code of the other.
    __device__ __forceinline__ unsigned units() const { return streamed ? units_of<true>() : units_of<false>(); }
    template <bool STREAMED>
    __device__ __forceinline__ unsigned units_of() const {
        return STREAMED && streamed ? tail.from + TAIL_PIECES * tail.blocks : tiles() * split.splits;
    }
    __device__ __forceinline__ Unit unit(unsigned u) const {
        if (u >= units()) return {0, 0, 1, 0, 0};
        return streamed ? unit_of<true>(u) : unit_of<false>(u);
    }
    template <bool STREAMED>
    __device__ __forceinline__ Unit unit_of(unsigned u) const {
        if (STREAMED && streamed) {
            if (u < tail.from) return {u, 0, 1, 0, k_steps};
            const unsigned v = u - tail.from;
            TailPiece q;
            if (!tail.piece(v % tail.blocks, v / tail.blocks, q)) return {0, 0, 1, 0, 0};
            return {q.tile, q.index, q.pieces, q.first, q.steps};
        }
        if (split.splits == 1) return {u, 0, 1, 0, k_steps};
        const unsigned tiles = this->tiles(), s = u / tiles, first = s * split.unit_steps;
        const unsigned left = k_steps - first;
        return {u % tiles, s, split.splits, first, left < split.unit_steps ? left : split.unit_steps};
    }

    // tma_ring.rs `cuts`: whether unit w's tile has its K cut (its units meet in the scratch), tested on the
    // launch's split where nothing is streamed.
    template <bool STREAMED>
    __device__ __forceinline__ bool cuts(const Unit& w) const {
        return STREAMED ? w.pieces > 1 : split.splits > 1;
    }

    // tma_ring.rs `cut_tile` and `slot`: a cut tile's index among the cut tiles (its arrival words) and
    // the scratch slot of its unit `index`.
    template <bool STREAMED>
    __device__ __forceinline__ unsigned cut_tile(unsigned tile) const {
        return STREAMED && streamed ? tile - tail.from : tile;
    }
    template <bool STREAMED>
    __device__ __forceinline__ unsigned slot(unsigned tile, unsigned index) const {
        return STREAMED && streamed ? tail.slot(tile, index) : tile * split.splits + index;
    }

    __device__ __forceinline__ unsigned full(unsigned s) const { return ring + L::full_barrier(s); }
    __device__ __forceinline__ unsigned empty(unsigned s) const { return ring + L::empty_barrier(s); }

    // tma_ring.rs `fill_of`: the first fill of work unit `u` into ring position `at`; no slices and
    // (0, 0) as the origin past the walk's end.
    __device__ __forceinline__ Fill fill_of(Position at, unsigned u) const {
        const Unit w = unit(u);
        if (w.steps == 0) return Fill{at, u, 0, 0, 0, 0, 0};
        const TileAt t = tile_at(w.tile);
        return Fill{at, u, 0, w.first, w.steps, int(t.row * L::BM), int(t.col * L::BN)};
    }

    __device__ __forceinline__ Fill first_fill() const { return fill_of(Position{0, 0}, walker()); }

    __device__ __forceinline__ bool has(const Fill& f) const { return f.steps > 0; }

    // tma_ring.rs `after`: the next slot, and the unit's next K slice or the walk's next unit.
    __device__ __forceinline__ Fill after(Fill f) const {
        const Position at = f.at.template next<L::STAGES>();
        if (f.ks + 1 < f.steps) {
            f.at = at;
            f.ks += 1;
            return f;
        }
        return fill_of(at, f.unit + walkers());
    }

    // tma_ring.rs `load`: TMA loads the fill's K slice of A and B into its slot, completing on
    // the slot's full barrier.
    __device__ __forceinline__ void load(const Fill& f, const unsigned long long* a_map,
                                         const unsigned long long* b_map) const {
        const int depth = int((f.first + f.ks) * WGEMM_BK);
        const unsigned bar = full(f.at.slot);
        hopper::mbarrier_arrive_expect_tx(bar, L::SLOT_BYTES);
        hopper::tma_load_2d(ring + L::a_slot(f.at.slot), a_map, depth, f.row0, bar);
        for (unsigned j = 0; j < L::BN / B_BOX_COLS; ++j) {
            const unsigned dst = ring + L::b_slot(f.at.slot) + j * WGEMM_BK * SWIZZLE_BYTES;
            if (L::CLUSTER == 1)
                hopper::tma_load_2d(dst, b_map, f.col0 + int(j * B_BOX_COLS), depth, bar);
            else if (j % L::CLUSTER == rank)
                hopper::tma_load_2d_multicast(dst, b_map, f.col0 + int(j * B_BOX_COLS), depth, bar,
                                              (unsigned short)((1u << L::CLUSTER) - 1));
        }
    }

    // tma_ring.rs `produce`: one producer thread's whole walk, each fill once its slot's empty
    // barrier says the previous fill was read.
    __device__ __forceinline__ void produce(const unsigned long long* a_map, const unsigned long long* b_map) const {
        hopper::prefetch_tensor_map(a_map);
        hopper::prefetch_tensor_map(b_map);
        for (Fill f = first_fill(); has(f); f = after(f)) {
            hopper::mbarrier_wait(empty(f.at.slot), f.at.phase ^ 1);
            load(f, a_map, b_map);
        }
    }
};

// gemm_epilogue.rs `Output::store::<2>` with `vector` (N even): alpha*acc + beta*C for the pair at
// (row, col), C read only where beta is not zero, nothing written outside C. The mma.sync ring lines'
// epilogue (their N is even); the wgmma lines take store_pair_or_singles.
__device__ __forceinline__ float blend(float alpha, float acc, float beta, float old) {
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * old);
}
__device__ __forceinline__ void store_pair(float* c, unsigned m, unsigned n, float alpha, float beta, unsigned row,
                                           unsigned col, float x, float y) {
    if (row < m && col < n) {
        float2* to = reinterpret_cast<float2*>(c + (row * n + col));
        const float2 old = beta != 0.0f ? *to : float2{0.0f, 0.0f};
        *to = float2{blend(alpha, x, beta, old.x), blend(alpha, y, beta, old.y)};
    }
}

// The same for the lines that take an odd N (sections/gemm_wgmma.rs `takes_odd_n`, tma_ring.rs
// `RingProblem::start`): pairs where N is even, else one float at a time.
__device__ __forceinline__ void store_pair_or_singles(float* c, unsigned m, unsigned n, float alpha, float beta,
                                                      unsigned row, unsigned col, float x, float y) {
    if (n % 2 == 0) {
        store_pair(c, m, n, alpha, beta, row, col, x, y);
    } else {
        const float v[2] = {x, y};
        for (unsigned j = 0; j < 2; ++j) {
            if (row < m && col + j < n) {
                float* to = c + (row * n + col + j);
                const float old = beta != 0.0f ? *to : 0.0f;
                *to = blend(alpha, v[j], beta, old);
            }
        }
    }
}

}  // namespace lab::ring
