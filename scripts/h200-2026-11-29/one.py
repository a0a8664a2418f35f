# Launch one GEMM entry of a module twice (ncu profiles the second): one.py MODULE ENTRY THREADS [SIZE]
import sys, numpy as np, cupy as cp
mod, entry, thr = sys.argv[1], sys.argv[2], int(sys.argv[3]); n = int(sys.argv[4]) if len(sys.argv) > 4 else 2048
k = cp.RawModule(path=mod).get_function(entry)
A = cp.random.rand(n, n, dtype=cp.float32); B = cp.random.rand(n, n, dtype=cp.float32); C = cp.zeros((n, n), cp.float32)
for _ in range(2):
    k((n // 64, n // 64), (thr,), (A, B, C, np.int32(n), np.int32(n), np.int32(n), np.float32(1), np.float32(0)))
cp.cuda.Device().synchronize()
print(entry, "regs", k.num_regs, "local", k.local_size_bytes)
