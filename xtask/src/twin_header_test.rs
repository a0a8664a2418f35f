//! The twin headers' generation from the variant table, on the CPU.

use super::*;

#[test]
fn every_table_entry_has_a_twin_line_in_table_order() {
    let lines = lines().unwrap();
    let names: Vec<&str> = lines.iter().map(Line::name).collect();
    let table: Vec<&str> = entries::all_entries().map(|e| e.name).collect();
    assert_eq!(names, table);
}

#[test]
fn lines_carry_the_tables_numbers() {
    let c = GEMM.iter().find(|v| v.label == "C").unwrap();
    assert_eq!(
        line(&entries::entry(c.entry).unwrap()).unwrap(),
        Line::Entry {
            name: c.entry,
            invocation: "LAB_GEMM_SEED(gemm_tm8_tn8, LAB_TIMED, 64, 0, 8, 8)".into()
        }
    );
    // Its traced twin: the same macro and numbers, its own name and LAB_TRACED.
    assert_eq!(
        line(&entries::entry(c.traced_entry()).unwrap()).unwrap(),
        Line::Entry {
            name: c.traced_entry(),
            invocation: "LAB_GEMM_SEED(gemm_tm8_tn8_traced, LAB_TRACED, 64, 0, 8, 8)".into()
        }
    );
    let r3 = GEMM.iter().find(|v| v.label == "R3").unwrap();
    let Line::Entry { invocation, .. } = line(&entries::entry(r3.entry).unwrap()).unwrap() else {
        panic!("R3 is measured")
    };
    assert_eq!(
        invocation,
        format!(
            "LAB_GEMM_TUNED({}, LAB_TIMED, 256, 0, {}, 128, 256, 8, 64, 64, 8, 16, 3)",
            r3.entry,
            r3.dynamic_shared_bytes()
        )
    );
    let m1 = BF16_GEMM.iter().find(|v| v.label == "M1").unwrap();
    assert_eq!(
        line(&entries::entry(m1.entry).unwrap()).unwrap(),
        Line::Entry {
            name: m1.entry,
            invocation: format!(
                "LAB_GEMM_BF16({}, LAB_TIMED, 128, {}, 128, 128, 32, 64, 64, 4)",
                m1.entry,
                m1.dynamic_shared_bytes()
            )
        }
    );
    assert_eq!(
        line(&entries::entry("mma_bf16_ilp2").unwrap()).unwrap(),
        Line::Entry {
            name: "mma_bf16_ilp2",
            invocation: "LAB_MMA_ILP(mma_bf16_ilp2, 2, 64)".into()
        }
    );
    let t14 = entries::entry("memcpy_t32_l14_w4").unwrap();
    assert_eq!(
        line(&t14).unwrap().macro_name(),
        Some("LAB_MEMCPY"),
        "{:?}",
        line(&t14)
    );
}

#[test]
fn the_header_guards_every_macro_and_names_the_capped_entry() {
    let h = render().unwrap();
    // Every macro the header invokes (a line's first word, up to its parenthesis) is guarded.
    let mut invoked: Vec<&str> = (h.lines())
        .filter_map(|l| l.trim_start().split_once('(').map(|(m, _)| m))
        .filter(|m| m.starts_with("LAB_") && !m.contains(' '))
        .collect();
    invoked.sort_unstable();
    invoked.dedup();
    assert!(invoked.len() >= 12, "{invoked:?}");
    for m in &invoked {
        assert!(h.contains(&format!("#ifndef {m}\n#error")), "{m}");
    }
    let (all, capped) = h.split_once("#else").unwrap();
    let measured = entries::all_entries()
        .filter(|e| matches!(line(e), Ok(Line::Entry { .. })))
        .count();
    assert_eq!(
        all.matches("\nLAB_").count(),
        measured,
        "one invocation per measured entry"
    );
    assert_eq!(capped.matches("\nLAB_").count(), 2);
    assert!(capped.contains(&format!("({}, LAB_TIMED, ", REGS.gemm().entry)));
    assert!(capped.contains(&format!("({}, LAB_TRACED, ", REGS.gemm().traced_entry())));
    let caps: Vec<String> = REGS.caps.iter().map(u32::to_string).collect();
    assert!(h.contains(&format!("#define LAB_REGS_CAPS \"{}\"", caps.join(" "))));
    let tuned: Vec<&str> = GEMM
        .iter()
        .filter(|v| v.family == GemmFamily::Tuned)
        .map(|v| v.label)
        .collect();
    assert!(!tuned.is_empty());
    assert!(h.contains(&format!("#define LAB_TUNED_LABELS \"{}\"", tuned.join(","))));
}

#[test]
fn the_sm90a_lines_are_the_modules_entries_with_the_tables_numbers() {
    let lines = hopper_lines();
    let names: Vec<&str> = lines.iter().map(Line::name).collect();
    let module: Vec<&str> = crate::hopper::hopper_entries().collect();
    assert_eq!(names, module);
    let w1 = WGEMM.iter().find(|v| v.label == "W1").unwrap();
    let mt1 = WGEMM.iter().find(|v| v.label == "MT1").unwrap();
    let invocation = |name: &str| match lines.iter().find(|l| l.name() == name) {
        Some(Line::Entry { invocation, .. }) => invocation.clone(),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(
        invocation(w1.entry),
        format!(
            "LAB_WGEMM({}, LAB_TIMED, 384, {}, 128, 256, 4, 2, 1, 0, 128, 232)",
            w1.entry,
            w1.dynamic_shared_bytes()
        )
    );
    // A line of turns says so, with its consumers' accumulators.
    let w6 = WGEMM.iter().find(|v| v.label == "W6").unwrap();
    assert_eq!(
        invocation(w6.entry),
        format!(
            "LAB_WGEMM({}, LAB_TIMED, 384, {}, 64, 256, 5, 2, 1, 1, 128, 232)",
            w6.entry,
            w6.dynamic_shared_bytes()
        )
    );
    assert_eq!(
        invocation(mt1.entry),
        format!(
            "LAB_TMA_MMA({}, LAB_TIMED, 256, {}, 128, 256, 4, 2)",
            mt1.entry,
            mt1.dynamic_shared_bytes()
        )
    );
    assert_eq!(
        invocation(mt1.traced_entry()),
        format!(
            "LAB_TMA_MMA({}, LAB_TRACED, 256, {}, 128, 256, 4, 2)",
            mt1.traced_entry(),
            mt1.dynamic_shared_bytes()
        )
    );
    assert_eq!(
        invocation("wgmma_bf16_n256_g16"),
        "LAB_WGMMA_BF16(wgmma_bf16_n256_g16, 256, 16)"
    );
    assert_eq!(
        invocation("tma_copy_t128_b4096_s4"),
        "LAB_TMA_COPY(tma_copy_t128_b4096_s4, 128, 4096, 4)"
    );
    let h = render_hopper();
    for m in ["LAB_WGMMA_BF16", "LAB_WGEMM", "LAB_TMA_MMA", "LAB_TMA_COPY"] {
        assert!(h.contains(&format!("#ifndef {m}\n#error")), "{m}");
    }
    assert_eq!(h.matches("\nLAB_").count(), module.len());
}

#[test]
fn a_line_without_a_table_row_is_an_error() {
    let ghost = EntryDecl {
        name: "gemm_tm3_tn3",
        family: Family::Gemm,
        max_threads: Some(64),
        traces: None,
    };
    let err = line(&ghost).unwrap_err().to_string();
    assert!(err.contains("gemm_tm3_tn3"), "{err}");
}
