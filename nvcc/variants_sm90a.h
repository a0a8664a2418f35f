// Generated from the variant table (kernels-gpu/src/variants.rs) by `cargo xtask build --nvcc`;
// do not edit. One macro invocation per entry of the Rust sm_90a module, in its order;
// nvcc/twin_sm90a.cu defines the macros.
#pragma once

#ifndef LAB_TMA_COPY
#error "the including file defines no LAB_TMA_COPY: it has no kernel for these table lines"
#endif
#ifndef LAB_TMA_MMA
#error "the including file defines no LAB_TMA_MMA: it has no kernel for these table lines"
#endif
#ifndef LAB_WGEMM
#error "the including file defines no LAB_WGEMM: it has no kernel for these table lines"
#endif
#ifndef LAB_WGMMA_BF16
#error "the including file defines no LAB_WGMMA_BF16: it has no kernel for these table lines"
#endif

LAB_WGMMA_BF16(wgmma_bf16_n64_g1, 64, 1)
LAB_WGMMA_BF16(wgmma_bf16_n64_g2, 64, 2)
LAB_WGMMA_BF16(wgmma_bf16_n64_g4, 64, 4)
LAB_WGMMA_BF16(wgmma_bf16_n64_g8, 64, 8)
LAB_WGMMA_BF16(wgmma_bf16_n128_g1, 128, 1)
LAB_WGMMA_BF16(wgmma_bf16_n128_g2, 128, 2)
LAB_WGMMA_BF16(wgmma_bf16_n128_g4, 128, 4)
LAB_WGMMA_BF16(wgmma_bf16_n128_g8, 128, 8)
LAB_WGMMA_BF16(wgmma_bf16_n256_g1, 256, 1)
LAB_WGMMA_BF16(wgmma_bf16_n256_g2, 256, 2)
LAB_WGMMA_BF16(wgmma_bf16_n256_g4, 256, 4)
LAB_WGMMA_BF16(wgmma_bf16_n256_g8, 256, 8)
LAB_WGMMA_BF16(wgmma_bf16_n256_g16, 256, 16)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s4_c2_x1, LAB_TIMED, 384, 197696, 128, 256, 4, 2, 1, 0, 128, 232)
LAB_WGEMM(wgemm_bm128_bn128_bk64_s6_c2_x1, LAB_TIMED, 384, 197728, 128, 128, 6, 2, 1, 0, 64, 232)
LAB_WGEMM(wgemm_bm64_bn256_bk64_s5_c1_x1, LAB_TIMED, 256, 205904, 64, 256, 5, 1, 1, 0, 128, 240)
LAB_WGEMM(wgemm_bm128_bn64_bk64_s8_c2_x1, LAB_TIMED, 384, 197760, 128, 64, 8, 2, 1, 0, 32, 232)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s4_c2_x2, LAB_TIMED, 384, 197696, 128, 256, 4, 2, 2, 0, 128, 232)
LAB_WGEMM(wgemm_bm64_bn256_bk64_s5_c2_x1, LAB_TIMED, 384, 205904, 64, 256, 5, 2, 1, 1, 128, 232)
LAB_WGEMM(wgemm_bm64_bn64_bk64_s13_c1_x1, LAB_TIMED, 256, 214224, 64, 64, 13, 1, 1, 0, 32, 240)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s3_c2_x1, LAB_TIMED, 384, 218496, 128, 256, 3, 2, 1, 0, 128, 232)
LAB_WGEMM(wgemm_bm128_bn128_bk64_s7_c2_x1, LAB_TIMED, 384, 230512, 128, 128, 7, 2, 1, 1, 128, 232)
LAB_TMA_MMA(tma_mma_bm128_bn256_bk64_s4_c2_x1, LAB_TIMED, 256, 197696, 128, 256, 4, 2)
LAB_TMA_MMA(tma_mma_bm128_bn128_bk64_s6_c2_x1, LAB_TIMED, 256, 197728, 128, 128, 6, 2)
LAB_TMA_COPY(tma_copy_t32_b2048_s4, 32, 2048, 4)
LAB_TMA_COPY(tma_copy_t32_b4096_s8, 32, 4096, 8)
LAB_TMA_COPY(tma_copy_t32_b8192_s8, 32, 8192, 8)
LAB_TMA_COPY(tma_copy_t32_b16384_s8, 32, 16384, 8)
LAB_TMA_COPY(tma_copy_t32_b24576_s8, 32, 24576, 8)
LAB_TMA_COPY(tma_copy_t128_b4096_s4, 128, 4096, 4)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s4_c2_x1_traced, LAB_TRACED, 384, 197696, 128, 256, 4, 2, 1, 0, 128, 232)
LAB_WGEMM(wgemm_bm128_bn128_bk64_s6_c2_x1_traced, LAB_TRACED, 384, 197728, 128, 128, 6, 2, 1, 0, 64, 232)
LAB_WGEMM(wgemm_bm64_bn256_bk64_s5_c1_x1_traced, LAB_TRACED, 256, 205904, 64, 256, 5, 1, 1, 0, 128, 240)
LAB_WGEMM(wgemm_bm128_bn64_bk64_s8_c2_x1_traced, LAB_TRACED, 384, 197760, 128, 64, 8, 2, 1, 0, 32, 232)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s4_c2_x2_traced, LAB_TRACED, 384, 197696, 128, 256, 4, 2, 2, 0, 128, 232)
LAB_WGEMM(wgemm_bm64_bn256_bk64_s5_c2_x1_traced, LAB_TRACED, 384, 205904, 64, 256, 5, 2, 1, 1, 128, 232)
LAB_WGEMM(wgemm_bm64_bn64_bk64_s13_c1_x1_traced, LAB_TRACED, 256, 214224, 64, 64, 13, 1, 1, 0, 32, 240)
LAB_WGEMM(wgemm_bm128_bn256_bk64_s3_c2_x1_traced, LAB_TRACED, 384, 218496, 128, 256, 3, 2, 1, 0, 128, 232)
LAB_WGEMM(wgemm_bm128_bn128_bk64_s7_c2_x1_traced, LAB_TRACED, 384, 230512, 128, 128, 7, 2, 1, 1, 128, 232)
LAB_TMA_MMA(tma_mma_bm128_bn256_bk64_s4_c2_x1_traced, LAB_TRACED, 256, 197696, 128, 256, 4, 2)
LAB_TMA_MMA(tma_mma_bm128_bn128_bk64_s6_c2_x1_traced, LAB_TRACED, 256, 197728, 128, 128, 6, 2)
