"""K2: the tuned SGEMM entries (kernels-gpu, `sgemm_*`) against cuBLAS (cupy.matmul), on one GPU.

Usage: python3 bench.py CUBIN MANIFEST [--entries a,b] [--sizes ...] [--quick]
- every `sgemm_*` entry of the module (or the listed ones) is checked against a float64
  reference at tiling and non-tiling sizes, with alpha/beta, with beta = 0 over a NaN-filled C
  (C must not be read), and on misaligned (offset) pointers;
- then timed against cuBLAS, samples interleaved in alternating order (each sample: LAUNCHES
  back-to-back launches between two events), median of SAMPLES samples.
The launch contract comes from the entry name: sgemm_bm{BM}_bn{BN}_bk{BK}_wm{WM}_wn{WN}_tm{TM}_tn{TN}_s{S}
(threads = (BM/WM)*(BN/WN)*32, dynamic shared memory = 4*S*(BK*(BM+4) + BK*BN) bytes,
grid = (ceil(N/BN), ceil(M/BM))), as kernels-gpu/src/tuned_shape.rs defines it.
"""
import argparse
import datetime
import json
import math
import os
import re
import statistics
import sys

os.environ.setdefault("CUPY_TF32", "0")
import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

NAME = re.compile(r"sgemm_bm(\d+)_bn(\d+)_bk(\d+)_wm(\d+)_wn(\d+)_tm(\d+)_tn(\d+)_s(\d+)$")
A_PAD = 4
TOL = 1e-4  # relative to alpha*sum|a*b| + |beta*c0| (the host's bound)


class Entry:
    def __init__(self, module, name, report):
        bm, bn, bk, wm, wn, tm, tn, st = map(int, NAME.match(name).groups())
        self.name, self.bm, self.bn = name, bm, bn
        self.threads = (bm // wm) * (bn // wn) * 32
        self.smem = 4 * st * (bk * (bm + A_PAD) + bk * bn)
        self.fn = module.get_function(name)
        if self.smem > 48 * 1024:
            self.fn.max_dynamic_shared_size_bytes = self.smem
        self.report = report
        self.short = f"{bm}x{bn}x{bk} w{wm}x{wn} t{tm}x{tn} s{st}"

    def __call__(self, a, b, c, m, n, k, alpha, beta):
        grid = ((n + self.bn - 1) // self.bn, (m + self.bm - 1) // self.bm)
        self.fn(grid, (self.threads,), (a, b, c, np.int32(m), np.int32(n), np.int32(k),
                                         np.float32(alpha), np.float32(beta)),
                shared_mem=self.smem)


def rand(shape, seed):
    return cp.random.RandomState(seed).uniform(-1, 1, shape).astype(cp.float32)


def offset_array(x, offset):
    """A copy of x whose data starts `offset` floats into a fresh allocation (misaligned)."""
    buf = cp.zeros(x.size + offset, dtype=cp.float32)
    view = buf[offset:offset + x.size].reshape(x.shape)
    view[...] = x
    return view


def check(entry, m, n, k, alpha, beta, seed, offset=0, nan_c=False):
    a, b = rand((m, k), seed), rand((k, n), seed + 1)
    c0 = cp.full((m, n), cp.nan, cp.float32) if nan_c else rand((m, n), seed + 2)
    if offset:
        a, b, c0 = offset_array(a, offset), offset_array(b, offset), offset_array(c0, offset)
    c = c0.copy() if not offset else offset_array(c0, offset)
    entry(a, b, c, m, n, k, alpha, beta)
    cp.cuda.Device().synchronize()
    a64, b64 = a.astype(cp.float64), b.astype(cp.float64)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (cp.abs(a64) @ cp.abs(b64))
    if beta != 0:
        ref += beta * c0.astype(cp.float64)
        scale += abs(beta) * cp.abs(c0.astype(cp.float64))
    err = cp.abs(c.astype(cp.float64) - ref)
    bad = ~(err <= TOL * scale + 1e-30)  # NaN counts as bad
    nbad = int(bad.sum())
    rel = float(cp.max(err / (scale + 1e-30)))
    return nbad == 0, nbad, rel


def time_interleaved(runs, launches, samples):
    """runs: list of (label, fn). Alternating order per sample. Returns {label: [ms per launch]}."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    out = {label: [] for label, _ in runs}
    for label, fn in runs:  # warm-up
        fn()
    cp.cuda.Device().synchronize()
    for s in range(samples):
        order = runs if s % 2 == 0 else runs[::-1]
        for label, fn in order:
            start.record()
            for _ in range(launches):
                fn()
            stop.record()
            stop.synchronize()
            out[label].append(cp.cuda.get_elapsed_time(start, stop) / launches)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cubin")
    p.add_argument("manifest")
    p.add_argument("--entries", default="")
    p.add_argument("--sizes", default="4096,8192,1024,2048,2048x8192x1024")
    p.add_argument("--check-big", default="4096,8192")
    p.add_argument("--samples", type=int, default=7)
    p.add_argument("--seed-entry", default="gemm_tm16_tn8", help="seed-family entry timed at 4096 for reference")
    args = p.parse_args()

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    try:
        cublas_version = cp.cuda.cublas.getVersion(cp.cuda.device.get_cublas_handle())
    except Exception as ex:  # noqa: BLE001
        cublas_version = f"unknown ({ex})"
    print(f"date {datetime.datetime.now(datetime.timezone.utc).isoformat()}; GPU {props['name'].decode()}, "
          f"{props['multiProcessorCount']} SMs; CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, "
          f"driver {cp.cuda.runtime.driverGetVersion()}; cuBLAS {cublas_version}; "
          f"CuPy {cp.__version__}; CUPY_TF32={os.environ.get('CUPY_TF32')}")
    manifest = json.load(open(args.manifest))
    main_mod = next(mm for mm in manifest["modules"] if mm["file"] == "kernels.ptx")
    reports = {e["name"]: e for e in main_mod["entries"]}
    module = cp.RawModule(path=args.cubin)
    names = [n for n in args.entries.split(",") if n] or sorted(n for n in reports if NAME.match(n))
    entries = [Entry(module, n, reports[n]) for n in names]
    print(f"ptxas: {manifest['ptxas']} ({manifest['arch']})")
    print(f"{'entry':52} {'tile':28} {'thr':>4} {'regs':>4} {'spill st/ld':>11} {'stack':>5} {'dyn smem':>8}")
    for e in entries:
        r = e.report
        print(f"{e.name:52} {e.short:28} {e.threads:4} {r['registers']:4} "
              f"{r['spill_stores']:5}/{r['spill_loads']:<5} {r['stack_frame']:5} {e.smem:8}")
    sys.stdout.flush()

    # Correctness.
    cases = [(1, 1, 1, 1.0, 0.0, 0, False), (129, 65, 17, 1.5, 0.5, 0, False),
             (1000, 1001, 999, 1.5, 0.5, 0, False), (67, 131, 33, 1.0, 0.0, 0, True),
             (129, 68, 17, -1.0, 2.0, 0, False), (5, 8, 3, 1.5, 0.5, 0, False),
             (256, 256, 1000, 1.5, 0.5, 0, False), (300, 260, 40, 1.5, 0.5, 1, False),
             (513, 516, 100, 1.0, 0.0, 0, True), (2048, 2048, 2048, 1.5, 0.5, 0, False)]
    cases += [(s, s, s, 1.5, 0.5, 0, False) for s in map(int, args.check_big.split(",")) if s]
    print("\ncorrectness (float64 reference, bound 1e-4 relative to |alpha|*sum|a*b| + |beta*c0|; "
          "nanC: C filled with NaN and beta = 0; off: A, B, C start 1 float past 16-byte alignment)")
    all_ok = True
    for e in entries:
        for i, (m, n, k, al, be, off, nan_c) in enumerate(cases):
            try:
                ok, nbad, rel = check(e, m, n, k, al, be, 100 + i, off, nan_c)
            except Exception as ex:  # noqa: BLE001
                ok, nbad, rel = False, -1, float("nan")
                print(f"  {e.name} {m}x{n}x{k}: ERROR {ex}")
            all_ok &= ok
            tag = ("nanC " if nan_c else "") + ("off " if off else "")
            print(f"  {e.short:28} {m}x{n}x{k} a={al} b={be} {tag}: {'PASS' if ok else 'FAIL'} "
                  f"(bad {nbad}, max rel err {rel:.2e})")
            sys.stdout.flush()
    print(f"all checks {'PASS' if all_ok else 'FAIL'}")

    # Throughput.
    seed = None
    try:
        seed = module.get_function(args.seed_entry)
    except Exception:  # noqa: BLE001
        pass
    for spec in args.sizes.split(","):
        dims = [int(x) for x in spec.split("x")]
        m, n, k = dims if len(dims) == 3 else dims * 3
        flop = 2.0 * m * n * k
        a, b = rand((m, k), 1), rand((k, n), 2)
        c = cp.zeros((m, n), cp.float32)
        launches = max(10, min(200, int(2e12 / flop * 10)))
        runs = [("cuBLAS", lambda: cp.matmul(a, b, out=c))]
        for e in entries:
            runs.append((e.name, lambda e=e: e(a, b, c, m, n, k, 1.0, 0.0)))
        if seed is not None and m == n == k and m % 64 == 0 and m == 4096:
            runs.append((args.seed_entry, lambda: seed((n // 64, m // 64), (32,),
                        (a, b, c, np.int32(m), np.int32(n), np.int32(k), np.float32(1), np.float32(0)))))
        t = time_interleaved(runs, launches, args.samples)
        med = {lab: statistics.median(v) for lab, v in t.items()}
        cub = flop / med["cuBLAS"] / 1e6
        print(f"\nM x N x K = {m} x {n} x {k}: {args.samples} samples of {launches} launches, medians")
        print(f"  {'variant':52} {'ms':>8} {'GFLOP/s':>9} {'/cuBLAS':>8} {'spread':>7}")
        for lab, v in t.items():
            g = flop / med[lab] / 1e6
            spread = (max(v) - min(v)) / med[lab]
            print(f"  {lab:52} {med[lab]:8.3f} {g:9.0f} {g / cub:8.3f} {spread:7.3f}")
        sys.stdout.flush()
        del a, b, c
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
