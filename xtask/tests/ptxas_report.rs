//! The ptxas report parser on real reports (tests/data/README.md says where each came from).

use xtask::ptxas::{parse_report, EntryReport};

fn entry<'a>(all: &'a [EntryReport], name: &str) -> &'a EntryReport {
    all.iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("{name} not parsed"))
}

#[test]
fn parses_the_rust_module_report() {
    let all = parse_report(include_str!("data/ptxas_rust_main_sm90.txt")).unwrap();
    assert_eq!(all.len(), 14, "7 GEMM + 7 memcpy entries");
    let d = entry(&all, "gemm_tm16_tn8");
    assert_eq!(
        (d.registers, d.stack_frame, d.spill_stores, d.spill_loads),
        (242, 0, 0, 0)
    );
    assert_eq!(
        (d.shared, d.barriers, d.arch.as_deref()),
        (4384, 1, Some("sm_90"))
    );
    let t1 = entry(&all, "memcpy_t1024_l1_w1");
    assert_eq!((t1.registers, t1.shared, t1.barriers), (8, 0, 0));
}

#[test]
fn parses_spills_and_cumulative_stack() {
    let all = parse_report(include_str!("data/ptxas_rust_cap32_sm90.txt")).unwrap();
    let d = entry(&all, "gemm_tm16_tn8");
    assert_eq!(
        (d.registers, d.stack_frame, d.spill_stores, d.spill_loads),
        (32, 2200, 5996, 5620)
    );
    assert_eq!(
        d.shared, 4384,
        "the cumulative stack size must not be read as shared memory"
    );
}

#[test]
fn parses_nvccs_report() {
    let all = parse_report(include_str!("data/ptxas_nvcc_peer_sm90.txt")).unwrap();
    assert_eq!(all.len(), 14);
    assert_eq!(entry(&all, "gemm_tm16_tn8").registers, 246);
    let dplus = entry(&all, "gemm_tm16_tn16");
    assert_eq!(
        (
            dplus.registers,
            dplus.stack_frame,
            dplus.spill_stores,
            dplus.spill_loads
        ),
        (255, 872, 2964, 2564)
    );
}

#[test]
fn parses_a_driver_jit_log() {
    // The driver's JIT info log uses the same lines without the "ptxas" prefix.
    let log = "info    : 0 bytes gmem\n\
               info    : Compiling entry function 'gemm_tm8_tn8' for 'sm_90'\n\
               info    : Function properties for gemm_tm8_tn8\n\
               info    : used 1 barriers, 48 bytes stack frame, 44 bytes spill stores, 44 bytes spill loads\n\
               info    : Used 128 registers, used 1 barriers, 48 bytes cumulative stack size, 4384 bytes smem\n";
    let all = parse_report(log).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(
        (
            all[0].registers,
            all[0].stack_frame,
            all[0].spill_stores,
            all[0].spill_loads
        ),
        (128, 48, 44, 44)
    );
}

#[test]
fn a_truncated_report_is_an_error() {
    let text = "ptxas info    : Compiling entry function 'gemm_tm8_tn8' for 'sm_90'\n\
                ptxas info    : Function properties for gemm_tm8_tn8\n";
    assert!(parse_report(text).is_err());
    let no_frame = "ptxas info    : Compiling entry function 'x' for 'sm_90'\nptxas info    : Used 8 registers\n";
    assert!(parse_report(no_frame).is_err());
}
