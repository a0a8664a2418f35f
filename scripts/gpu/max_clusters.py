#!/usr/bin/env python3
"""How many clusters of a cluster kernel the driver says can be resident at once (cuOccupancyMaxActiveClusters),
beside the blocks per SM of the same launch: whether a persistent grid of one cluster per two SMs fits.
Usage: max_clusters.py PTX ENTRY THREADS DYN_SMEM [GRID]  (the entry must declare its cluster in its PTX)."""
import ctypes
import sys

ptx_path, entry, threads, smem = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
grid = int(sys.argv[5]) if len(sys.argv) > 5 else 132
cu = ctypes.CDLL("libcuda.so.1")


def check(status, what):
    if status != 0:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(status, ctypes.byref(name))
        raise SystemExit(f"{what}: {name.value.decode() if name.value else status}")


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                ("numAttrs", ctypes.c_uint)]


check(cu.cuInit(0), "cuInit")
dev, ctx, mod, fn = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
ptx = open(ptx_path, "rb").read() + b"\0"
check(cu.cuModuleLoadData(ctypes.byref(mod), ptx), "cuModuleLoadData")
check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, entry.encode()), "cuModuleGetFunction")
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
check(cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem), "cuFuncSetAttribute")
blocks = ctypes.c_int()
check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(blocks), fn, threads, ctypes.c_size_t(smem)),
      "cuOccupancyMaxActiveBlocksPerMultiprocessor")
config = LaunchConfig(grid, 1, 1, threads, 1, 1, smem, None, None, 0)
clusters = ctypes.c_int()
check(cu.cuOccupancyMaxActiveClusters(ctypes.byref(clusters), fn, ctypes.byref(config)),
      "cuOccupancyMaxActiveClusters")
sms = ctypes.c_int()
check(cu.cuDeviceGetAttribute(ctypes.byref(sms), 16, dev), "cuDeviceGetAttribute")  # multiprocessor count
print(f"{entry}: {blocks.value} block(s)/SM; at most {clusters.value} clusters resident at once "
      f"({sms.value} SMs; a persistent grid of {grid} blocks is {grid // 2} clusters of two)")
