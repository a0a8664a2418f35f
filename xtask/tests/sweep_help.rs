//! `cargo xtask sweep --help` names every experiment the host runs (the registry's names, which
//! the host's build holds kernels-gpu's copy to), and their number.

use std::process::Command;

#[test]
fn sweep_help_lists_every_experiment_of_the_registry() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["sweep", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let names = kernels_gpu::experiment_names::EXPERIMENT_NAMES;
    assert!(names.len() >= 8, "{names:?}");
    assert!(
        help.contains(&format!("all {} experiments", names.len())),
        "{help}"
    );
    for name in names {
        assert!(help.contains(name), "{name} not in: {help}");
    }
}
