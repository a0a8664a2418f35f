//! The dense BF16 tensor-core spec peak (FP32 accumulation, no sparsity), for the architectures
//! whose rate the lab knows: the rate per SM per clock times SMs and the clock given.

/// Dense BF16 FLOPs per SM per clock with FP32 accumulation: 1024 multiply-adds on sm_80 (A100),
/// 2048 on sm_90 (H100, H200). None elsewhere: the sm_86/sm_89 parts differ between the
/// workstation and the GeForce boards (full or half rate with FP32 accumulation), and the lab has
/// not checked a later one.
pub fn bf16_dense_flops_per_sm_clock(cc: (u32, u32)) -> Option<u32> {
    match cc {
        (8, 0) => Some(2 * 1024),
        (9, 0) => Some(2 * 2048),
        _ => None,
    }
}

/// Spec dense BF16 peak in GFLOP/s at `sm_clock_khz` (the datasheets use the boost clock of
/// the tensor cores, which may be below the SM's maximum the driver reports).
pub fn peak_bf16_dense_gflops(cc: (u32, u32), sm_count: u32, sm_clock_khz: u32) -> Option<f64> {
    bf16_dense_flops_per_sm_clock(cc)
        .map(|per| f64::from(sm_count) * f64::from(per) * f64::from(sm_clock_khz) * 1e3 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_datasheet_peaks_come_back() {
        // H100 SXM: 132 SMs, 989.4 TFLOP/s dense BF16 at 1830 MHz.
        let h100 = peak_bf16_dense_gflops((9, 0), 132, 1_830_000).unwrap();
        assert!((h100 - 989_429.76).abs() < 0.01, "{h100}");
        // A100: 108 SMs, 312 TFLOP/s at 1410 MHz.
        let a100 = peak_bf16_dense_gflops((8, 0), 108, 1_410_000).unwrap();
        assert!((a100 - 311_869.44).abs() < 0.01, "{a100}");
        assert_eq!(peak_bf16_dense_gflops((8, 9), 128, 2_520_000), None);
    }
}
