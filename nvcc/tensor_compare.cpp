// Rust's and nvcc's builds of the tensor-core entries side by side on GPU 0, through the CUDA
// driver API alone, for nvcc/check_tensor_on_gpu.sh: every mma and BF16 GEMM line of the variant
// table (read from variants.h), each launched from both modules on the same inputs. The twin must
// write what the Rust kernel writes, bit for bit: the two run the same mma.sync in the same order
// on the same operands, and the same epilogue (host/tests/tensor_gpu.rs holds the Rust kernels to
// the CPU model and to an f64 reference). Each line is then timed, the two modules' batches of
// launches taken in alternating order, and the medians printed with their ratio; a timing is
// reported, never judged.
//
//   tensor_compare RUST_MODULE TWIN_MODULE
//
// Modules: a cubin for this GPU or PTX (the driver compiles it). Exit status: 0 when every output
// matched, 1 when one differed, 2 on a usage or CUDA error.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

enum class Kind { Bf16Gemm, Mma };

// One tensor-core line of the table.
struct Line {
    const char* entry;
    Kind kind;
    unsigned threads, shared_bytes, bm, bn;
    int ilp;
};

// The table's lines through the generated header: the tensor-core macros make a Line each, the
// other families' nothing.
#define LAB_GEMM_SEED(...)
#define LAB_GEMM_TUNED(...)
#define LAB_MEMCPY(...)
#define LAB_PERSISTENT_COPY(...)
#define LAB_PERSISTENT_COPY_SAMPLED(...)
#define LAB_FMA_ILP(...)
#define LAB_FMA_CONTROL(...)
#define LAB_CHASE(...)
#define LAB_READ(...)
#define LAB_SMEM_COPY(...)
// A GEMM line's TRACE argument says whether it is the timed entry or its traced twin; the
// comparison takes the timed entries only (a traced twin writes the same C, plus its trace).
#define LAB_TIMED(...) __VA_ARGS__
#define LAB_TRACED(...)
#define LAB_GEMM_BF16(NAME, TRACE, threads, shared_bytes, bm, bn, bk, wm, wn, stages) \
    TRACE({#NAME, Kind::Bf16Gemm, threads, shared_bytes, bm, bn, 0},)
#define LAB_MMA_ILP(NAME, ilp, rounds) {#NAME, Kind::Mma, 0, 0, 0, 0, ilp},
const Line LINES[] = {
#include "variants.h"
};

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "tensor_compare: %s: %s\n", what, name);
    std::exit(2);
}

struct Buffer {
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    explicit Buffer(std::size_t n) : bytes(n) { check(cuMemAlloc(&ptr, n), "cuMemAlloc"); }
    ~Buffer() { cuMemFree(ptr); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    template <class T>
    void upload(const std::vector<T>& v) {
        check(cuMemcpyHtoD(ptr, v.data(), v.size() * sizeof(T)), "cuMemcpyHtoD");
    }
    template <class T>
    std::vector<T> download() const {
        std::vector<T> v(bytes / sizeof(T));
        check(cuMemcpyDtoH(v.data(), ptr, bytes), "cuMemcpyDtoH");
        return v;
    }
};

// One entry of one module, with its launch shape.
struct Launch {
    CUfunction f;
    unsigned gx, gy, threads, shared;
    void run(void** params) const {
        check(cuLaunchKernel(f, gx, gy, 1, threads, 1, 1, shared, nullptr, params, nullptr), "cuLaunchKernel");
    }
};

CUfunction function(CUmodule m, const char* entry, unsigned shared) {
    CUfunction f;
    check(cuModuleGetFunction(&f, m, entry), entry);
    if (shared > 48 * 1024)
        check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shared)), entry);
    return f;
}

int registers(CUfunction f) {
    int r = 0;
    check(cuFuncGetAttribute(&r, CU_FUNC_ATTRIBUTE_NUM_REGS, f), "registers");
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Milliseconds per launch of Rust's and the twin's entry, medians of `samples` batches of
// `batch` launches each, the two sides' batches in alternating order.
std::pair<double, double> time_both(const Launch& rust, void** rust_params, const Launch& twin, void** twin_params,
                                    int batch, int samples) {
    CUevent start, stop;
    check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    auto one = [&](const Launch& l, void** params) {
        check(cuEventRecord(start, nullptr), "cuEventRecord");
        for (int i = 0; i < batch; ++i) l.run(params);
        check(cuEventRecord(stop, nullptr), "cuEventRecord");
        check(cuEventSynchronize(stop), "cuEventSynchronize");
        float ms = 0;
        check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        return double(ms) / batch;
    };
    one(rust, rust_params);
    one(twin, twin_params);
    std::vector<double> r, t;
    for (int s = 0; s < samples; ++s) {
        if (s % 2 == 0) {
            r.push_back(one(rust, rust_params));
            t.push_back(one(twin, twin_params));
        } else {
            t.push_back(one(twin, twin_params));
            r.push_back(one(rust, rust_params));
        }
    }
    cuEventDestroy(start);
    cuEventDestroy(stop);
    return {median(r), median(t)};
}

// Elements where the two outputs differ in any bit.
template <class T>
std::size_t differing(const std::vector<T>& a, const std::vector<T>& b) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
    return n;
}

std::uint16_t bf16_of(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    return std::uint16_t(bits >> 16);
}

// A BF16 GEMM line: C = alpha*A*B + beta*C at sizes that take each staging path and epilogue,
// every element compared; then timed at a large size with alpha 1, beta 0.
bool compare_gemm(const Line& l, CUmodule rust_m, CUmodule twin_m) {
    const CUfunction fr = function(rust_m, l.entry, l.shared_bytes), ft = function(twin_m, l.entry, l.shared_bytes);
    bool ok = true;
    struct Size {
        int m, n, k;
        bool timed;
    };
    for (const Size& s : {Size{1000, 1001, 17, false}, Size{1000, 1000, 1000, false}, Size{4096, 4096, 4096, true}}) {
        std::mt19937 rng(unsigned(s.m * 31 + s.n * 7 + s.k));
        std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
        std::vector<std::uint16_t> a(std::size_t(s.m) * s.k), b(std::size_t(s.k) * s.n);
        std::vector<float> c0(std::size_t(s.m) * s.n);
        for (auto& x : a) x = bf16_of(unit(rng));
        for (auto& x : b) x = bf16_of(unit(rng));
        for (auto& x : c0) x = unit(rng);
        Buffer da(a.size() * 2), db(b.size() * 2), cr(c0.size() * 4), ct(c0.size() * 4);
        da.upload(a);
        db.upload(b);
        cr.upload(c0);
        ct.upload(c0);
        const unsigned gx = (unsigned(s.n) + l.bn - 1) / l.bn, gy = (unsigned(s.m) + l.bm - 1) / l.bm;
        const Launch rust{fr, gx, gy, l.threads, l.shared_bytes}, twin{ft, gx, gy, l.threads, l.shared_bytes};
        float alpha = s.timed ? 1.0f : 1.5f, beta = s.timed ? 0.0f : 0.5f;
        int m = s.m, n = s.n, k = s.k;
        void* pr[] = {&da.ptr, &db.ptr, &cr.ptr, &m, &n, &k, &alpha, &beta};
        void* pt[] = {&da.ptr, &db.ptr, &ct.ptr, &m, &n, &k, &alpha, &beta};
        rust.run(pr);
        twin.run(pt);
        check(cuCtxSynchronize(), l.entry);
        const std::size_t diff = differing(cr.download<float>(), ct.download<float>());
        ok &= diff == 0;
        std::printf("%s %s %dx%dx%d alpha %g beta %g: %zu of %zu elements differ\n", diff == 0 ? "ok" : "FAIL", l.entry,
                    s.m, s.n, s.k, alpha, beta, diff, c0.size());
        if (!s.timed) continue;
        const auto [ms_rust, ms_twin] = time_both(rust, pr, twin, pt, 20, 21);
        const double flop = 2.0 * s.m * s.n * s.k;
        std::printf("time %s %dx%dx%d: Rust %.1f TFLOP/s (%d regs), nvcc %.1f TFLOP/s (%d regs), Rust/nvcc %.3f\n",
                    l.entry, s.m, s.n, s.k, flop / ms_rust / 1e9, registers(fr), flop / ms_twin / 1e9, registers(ft),
                    ms_twin / ms_rust);
        // The timed launches' outputs too.
        const std::size_t timed_diff = differing(cr.download<float>(), ct.download<float>());
        ok &= timed_diff == 0;
        if (timed_diff) std::printf("FAIL %s: %zu elements differ after the timed launches\n", l.entry, timed_diff);
    }
    return ok;
}

// An mma line: small-integer fragments (every sum exact), at 4 and 16 warps per SM, outputs
// compared for every thread; then timed.
bool compare_mma(const Line& l, CUmodule rust_m, CUmodule twin_m, int sms) {
    const CUfunction fr = function(rust_m, l.entry, 0), ft = function(twin_m, l.entry, 0);
    std::mt19937 rng(unsigned(l.ilp));
    std::uniform_int_distribution<int> element(-3, 3);
    std::vector<unsigned> a(128), b(64);
    for (auto* v : {&a, &b})
        for (auto& w : *v) w = unsigned(bf16_of(float(element(rng)))) | unsigned(bf16_of(float(element(rng)))) << 16;
    Buffer da(a.size() * 4), db(b.size() * 4);
    da.upload(a);
    db.upload(b);
    bool ok = true;
    for (int warps_per_sm : {4, 16}) {
        const unsigned threads = 128, blocks = unsigned(sms * warps_per_sm / 4);
        Buffer outr(std::size_t(blocks) * threads * 4), outt(std::size_t(blocks) * threads * 4);
        const Launch rust{fr, blocks, 1, threads, 0}, twin{ft, blocks, 1, threads, 0};
        // Odd: the remainder loop runs too, whatever the rounds per iteration.
        int iters = 4099;
        void* pr[] = {&da.ptr, &db.ptr, &outr.ptr, &iters};
        void* pt[] = {&da.ptr, &db.ptr, &outt.ptr, &iters};
        rust.run(pr);
        twin.run(pt);
        check(cuCtxSynchronize(), l.entry);
        const std::vector<float> r = outr.download<float>(), t = outt.download<float>();
        const std::size_t diff = differing(r, t);
        const bool nonzero = std::any_of(r.begin(), r.end(), [](float x) { return x != 0.0f; });
        ok &= diff == 0 && nonzero;
        std::printf("%s %s %d warps/SM, iters %d: %zu of %zu threads differ%s\n", diff == 0 && nonzero ? "ok" : "FAIL",
                    l.entry, warps_per_sm, iters, diff, r.size(), nonzero ? "" : " (every output is zero)");
        const auto [ms_rust, ms_twin] = time_both(rust, pr, twin, pt, 10, 21);
        const double flop = 4096.0 * l.ilp * iters * (double(blocks) * threads / 32);
        std::printf("time %s %d warps/SM: Rust %.1f TFLOP/s (%d regs), nvcc %.1f TFLOP/s (%d regs), Rust/nvcc %.3f\n",
                    l.entry, warps_per_sm, flop / ms_rust / 1e9, registers(fr), flop / ms_twin / 1e9, registers(ft),
                    ms_twin / ms_rust);
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: tensor_compare RUST_MODULE TWIN_MODULE\n");
        return 2;
    }
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    int sms = 0, major = 0, minor = 0;
    check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "SM count");
    check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "compute capability");
    check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "compute capability");
    if (major < 8) {
        std::fprintf(stderr, "tensor_compare: the tensor-core entries need sm_80 or newer; GPU 0 is sm_%d%d\n", major,
                     minor);
        return 2;
    }
    CUmodule rust, twin;
    check(cuModuleLoad(&rust, argv[1]), argv[1]);
    check(cuModuleLoad(&twin, argv[2]), argv[2]);
    std::printf("tensor_compare: sm_%d%d, %d SMs; Rust %s, nvcc %s\n", major, minor, sms, argv[1], argv[2]);
    bool ok = true;
    for (const Line& l : LINES) ok &= l.kind == Kind::Mma ? compare_mma(l, rust, twin, sms) : compare_gemm(l, rust, twin);
    std::printf("tensor_compare: %s\n", ok ? "every output of the twin is the Rust kernel's, bit for bit"
                                             : "some outputs DIFFER");
    return ok ? 0 : 1;
}
