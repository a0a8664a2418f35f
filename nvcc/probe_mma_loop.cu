// What caps mma.sync inside the BF16 GEMM's main loop (docs/design.md, "What caps mma.sync in a
// GEMM"). A probe, not part of nvcc's twin: built and run on the GPU machine by nvcc,
//   nvcc -arch=sm_90 -O3 -o probe nvcc/probe_mma_loop.cu && ./probe
// and held by xtask/tests/probe.rs to issuing, in each mode's main loop, the instructions its
// name says (read from the SASS). One block of 8 warps per SM, each warp running the GEMM's
// 64 x 64 warp tile (4 x 8 m16n8k16 accumulators), in modes that add one cost at a time:
//   same     every MMA reads the same A and B registers (experiment 6's pattern, ILP 32)
//   tile     A fragment mi and B fragment ni for accumulator (mi, ni), fixed registers
//   ldsm     tile, with the fragments of the next k16 step loaded by ldmatrix (x4, x4.trans)
//            from shared memory while this step's MMAs run (the GEMM's double buffering)
//   ldsm_bar ldsm, with a block barrier every 4 k16 steps (the GEMM's slice of BK = 64)
//   copy     ldsm_bar, with the GEMM's global traffic: 48 KB a block a slice by 16-byte cp.async
//            (12 a thread) from a 32 MB buffer of random bits into a separate shared area,
//            waited on two slices later before the barrier, as M9 does
//   stores   ldsm_bar, with the same 48 KB a slice written to shared memory by st.shared (the
//            copies' shared-memory writes without their L2 reads)
//   third    copy, with a third of each slice written by st.shared instead of copied: the L2
//            reads a CTA would issue if a cluster of two multicast the operand they share
//   narrow   stores, with 4-byte st.shared instead of 16-byte: the same instructions, a quarter
//            of the bytes (does the cost follow the bytes or the instructions?)
//   spread   stores, three a thread at each k16 step instead of twelve at the first
//   copy_spr copy, spread the same way (does the landing cost for coming in one burst?)
// Round 0 times 15 launches of each (too short for the power cap to act); round 1 runs
// each back to back for about 1.5 s and prints the median of the second half of its launches,
// with the UTC time it started, to be read beside a clock log (nvidia-smi -lms 50). The sums
// are written out so that no work is dropped; their values are not checked: the figure is the
// time of the instructions the test finds in the SASS.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <ctime>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void ldsm4(uint32_t (&r)[4], uint32_t at) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
}
__device__ __forceinline__ void ldsm4t(uint32_t (&r)[4], uint32_t at) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
}

struct Frags { uint32_t a[4][4]; uint32_t b[8][2]; };

// Fragments of k16 step `kk`: 4 ldmatrix.x4 for A, 4 ldmatrix.x4.trans for B, each lane one
// 16-byte row of a 512-byte run, so every phase is conflict-free; steps move through 4 stages.
__device__ __forceinline__ void load(Frags &f, uint32_t base, int kk) {
  uint32_t at = base + (uint32_t)(kk & 15) * 8192u + (threadIdx.x % 32) * 16u;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) ldsm4(f.a[mi], at + mi * 512u);
#pragma unroll
  for (int nj = 0; nj < 4; ++nj) {
    uint32_t v[4];
    ldsm4t(v, at + 2048u + nj * 512u);
    f.b[2 * nj][0] = v[0]; f.b[2 * nj][1] = v[1];
    f.b[2 * nj + 1][0] = v[2]; f.b[2 * nj + 1][1] = v[3];
  }
}

__device__ __forceinline__ void cp16(uint32_t dst, const void *src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" :: "r"(dst), "l"(src));
}

template <int MODE>  // 0 same, 1 tile, 2 ldsm, 3 ldsm_bar, 4 copy, 5 stores, 6 third, 7 narrow, 8 spread, 9 copy_spr
__global__ void __launch_bounds__(256, 1) probe(const uint16_t *in, float *out, int steps,
                                                const uint4 *traffic, uint32_t traffic_chunks) {
  extern __shared__ __align__(16) uint16_t smem[];
  // 16 steps' worth of fragments (128 KB), random bf16 from `in`.
  for (int i = threadIdx.x; i < 16 * 4096; i += blockDim.x) smem[i] = in[i];
  __syncthreads();
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  float acc[4][8][4] = {};
  Frags cur;
  load(cur, base, 0);
  if (MODE <= 1) {
    for (int s = 0; s < steps; ++s) {
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 8; ++ni) {
          if (MODE == 0) mma(acc[mi][ni], cur.a[0], cur.b[0]);
          else mma(acc[mi][ni], cur.a[mi], cur.b[ni]);
        }
    }
  } else {
    uint32_t copy_base = (uint32_t)__cvta_generic_to_shared(smem) + 16 * 8192;
    uint32_t slice = 0;
    for (int s = 0; s < steps; s += 4) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        Frags nxt;
        if (MODE >= 4 && (MODE >= 8 || kk == 0)) {
          // 3072 chunks a block a slice, at chunk (5b + s) * 3072 of the buffer (a power of two);
          // all at the slice's first k-step, or (spread modes) three a thread at each.
          uint32_t first = (blockIdx.x * 5u + slice) * 3072u & (traffic_chunks - 1);
          const int j0 = MODE >= 8 ? 3 * kk : 0, j1 = MODE >= 8 ? 3 * kk + 3 : 12;
#pragma unroll
          for (int j = j0; j < j1; ++j) {
            uint32_t c = j * 256 + threadIdx.x;
            uint32_t dst = copy_base + (c % 1024) * 16u;
            if (MODE == 7) {
              asm volatile("st.shared.u32 [%0], %1;" :: "r"(copy_base + (c % 4096) * 4u), "r"(c ^ first));
            } else if (MODE == 5 || MODE == 8 || (MODE == 6 && j >= 8)) {
              asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" :: "r"(dst), "r"(c), "r"(first), "r"(j), "r"(slice));
            } else {
              cp16(dst, traffic + ((first + c) & (traffic_chunks - 1)));
            }
          }
          if (MODE < 8 || kk == 3) {
            asm volatile("cp.async.commit_group;");
            ++slice;
          }
        }
        if (MODE >= 4 && kk == 3) asm volatile("cp.async.wait_group 2;" ::: "memory");
        if (MODE >= 3 && kk == 3) __syncthreads();
        load(nxt, base, s + kk + 1);
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
          for (int ni = 0; ni < 8; ++ni) mma(acc[mi][ni], cur.a[mi], cur.b[ni]);
        cur = nxt;
      }
    }
  }
  if (MODE >= 4) asm volatile("cp.async.wait_group 0;" ::: "memory");
  float sum = 0;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int j = 0; j < 4; ++j) sum += acc[mi][ni][j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Random bits for the copied bytes, as the GEMM's random inputs toggle the datapaths.
__global__ void fill(uint4 *p, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t x = i * 2654435761u + 12345u, w[4];
    for (int j = 0; j < 4; ++j) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; w[j] = x; }
    p[i] = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

template <int MODE>
int run(const char *name, const uint16_t *in, float *out, int sms, int steps, int reps,
        const uint4 *traffic, uint32_t chunks, bool sustain) {
  auto k = probe<MODE>;
  int smem = 16 * 4096 * 2 + 16384;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaFuncAttributes attr; CK(cudaFuncGetAttributes(&attr, k));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> ms;
  time_t t0 = time(nullptr);
  char when[16]; strftime(when, sizeof when, "%H:%M:%S", gmtime(&t0));
  double spent = 0;
  for (int r = 0; sustain ? spent < 1500.0 : r < reps + 2; ++r) {
    CK(cudaEventRecord(a));
    k<<<sms, 256, smem>>>(in, out, steps, traffic, chunks);
    CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); CK(cudaGetLastError());
    float t; CK(cudaEventElapsedTime(&t, a, b));
    spent += t;
    if (r >= 2) ms.push_back(t);
  }
  if (sustain) ms.erase(ms.begin(), ms.begin() + ms.size() / 2);
  std::sort(ms.begin(), ms.end());
  printf("%s %s ", when, sustain ? "sustained" : "short");
  double flops = 2.0 * 16 * 8 * 16 * 32 * (double)steps * 8 * sms;
  printf("%-9s regs %3d spill %zu  median %.3f ms  min %.3f  max %.3f  TFLOP/s median %.1f best %.1f\n", name,
         attr.numRegs, (size_t)attr.localSizeBytes, ms[ms.size() / 2], ms.front(), ms.back(),
         flops / ms[ms.size() / 2] / 1e9, flops / ms.front() / 1e9);
  return 0;
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<uint16_t> h(16 * 4096);
  uint32_t x = 12345;
  for (auto &v : h) { x = x * 1664525u + 1013904223u; v = (uint16_t)(0x3c00 | ((x >> 9) & 0x7f) | ((x >> 31) << 15)); }
  uint16_t *in; float *out; uint4 *traffic;
  uint32_t chunks = 32u << 20 >> 4;
  CK(cudaMalloc(&in, h.size() * 2)); CK(cudaMalloc(&out, sms * 256 * 4));
  CK(cudaMalloc(&traffic, (size_t)chunks * 16)); fill<<<sms * 4, 256>>>(traffic, chunks); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(in, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  int steps = 4096, reps = 15;
  for (int round = 0; round < 2; ++round) {
    bool sustain = round > 0;
    printf("round %d\n", round);
    if (run<0>("same", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<1>("tile", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<2>("ldsm", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<3>("ldsm_bar", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<4>("copy", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<5>("stores", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<6>("third", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<7>("narrow", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<8>("spread", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
    if (run<9>("copy_spr", in, out, sms, steps, reps, traffic, chunks, sustain)) return 1;
  }
  return 0;
}
