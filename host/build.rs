//! Builds the Rust kernels to PTX (the same build as `cargo xtask build`) and embeds the modules
//! in the host binary, so `cargo run -p host -- regs` works from a fresh clone.

use std::fmt::Write as _;
use std::path::PathBuf;

use xtask::modules::{self, ModuleKind};
use xtask::ptx::{PtxBuild, DEFAULT_ARCH};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let workspace = manifest_dir
        .parent()
        .expect("host lives in the workspace")
        .to_path_buf();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    for watched in [
        "kernels-gpu/src",
        "kernels-gpu/Cargo.toml",
        "rust-toolchain.toml",
        "Cargo.toml",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    println!("cargo:rerun-if-env-changed=LAB_PTX_ARCH");
    // GPU-only tests are marked ignored (with the reason) where no driver is installed.
    println!("cargo:rustc-check-cfg=cfg(lab_gpu)");
    if xtask::driver::installed() {
        println!("cargo:rustc-cfg=lab_gpu");
    }
    let arch = std::env::var("LAB_PTX_ARCH").unwrap_or_else(|_| DEFAULT_ARCH.to_string());

    // The two builds have target folders of their own and each runs mostly on one CPU (one
    // codegen unit, fat LTO), so they run side by side.
    let (plain, hopper) = std::thread::scope(|s| {
        let hopper = s.spawn(|| PtxBuild::hopper(&workspace).compile());
        (PtxBuild::new(&workspace, &arch).compile(), hopper.join())
    });
    let plain = match plain {
        Ok(ptx) => ptx,
        Err(e) => panic!("building the Rust kernels to PTX failed: {e}"),
    };
    let written = match modules::write_all(&plain, &out) {
        Ok(m) => m,
        Err(e) => panic!("writing the kernel modules failed: {e}"),
    };

    let hopper = match hopper.expect("the sm_90a build's thread") {
        Ok(ptx) => ptx,
        Err(e) => panic!("building the sm_90a kernels to PTX failed: {e}"),
    };
    if let Err(e) = xtask::hopper::write(&hopper, &out) {
        panic!("writing the sm_90a module failed: {e}");
    }

    let path_of = |file: &str| out.join(file).display().to_string();
    let mut code = String::new();
    writeln!(
        code,
        "/// `.target` of the embedded PTX.\npub const PTX_ARCH: &str = {arch:?};"
    )
    .unwrap();
    writeln!(
        code,
        "/// The compiler that built the kernels.\npub const RUSTC: &str = {:?};",
        rustc_version()
    )
    .unwrap();
    for m in &written {
        match m.kind {
            ModuleKind::Main => writeln!(
                code,
                "/// Part I's entries (all but the tensor-core families'), each with launch bounds from\n\
                 /// the variant table.\n\
                 pub const MAIN: &str = include_str!({:?});",
                path_of(&m.file)
            ),
            ModuleKind::Unbounded => writeln!(
                code,
                "/// Part I's entries, no launch bounds and no register cap.\n\
                 pub const UNBOUNDED: &str = include_str!({:?});",
                path_of(&m.file)
            ),
            ModuleKind::Checks => writeln!(
                code,
                "/// The GEMM check's reference and comparison entries, with launch bounds.\n\
                 pub const CHECKS: &str = include_str!({:?});",
                path_of(&m.file)
            ),
            ModuleKind::Tensor => writeln!(
                code,
                "/// The tensor-core families' entries (BF16 GEMM, mma microbenchmarks), with launch\n\
                 /// bounds.\n\
                 pub const TENSOR: &str = include_str!({:?});",
                path_of(&m.file)
            ),
            ModuleKind::Capped { .. } => Ok(()),
        }
        .unwrap();
    }
    // Experiment 6 launches only the mma microbenchmark: a module of its entries alone spares
    // every run the JIT of the BF16 GEMM lines beside them in the tensor-core module (seconds).
    let tensor = written
        .iter()
        .find(|m| m.kind == ModuleKind::Tensor)
        .expect("the lab builds a tensor-core module");
    let tensor_ptx = std::fs::read_to_string(out.join(&tensor.file)).expect("reading it back");
    let mma_ilp = ptxas_report::ptx_entries::keep_entries(&tensor_ptx, |e| {
        kernels_gpu::variants::MMA_ILP.iter().any(|v| v.entry == e)
    })
    .expect("the tensor-core module's entries have bodies");
    std::fs::write(out.join("kernels_mma_ilp.ptx"), mma_ilp).expect("writing the mma module");
    writeln!(
        code,
        "/// The mma microbenchmark's entries of `TENSOR` alone.\n\
         pub const MMA_ILP: &str = include_str!({:?});",
        path_of("kernels_mma_ilp.ptx")
    )
    .unwrap();
    writeln!(
        code,
        "/// The sm_90a module: the wgmma microbenchmark's entries, one warpgroup per block. Only a\n\
         /// compute capability 9.0 device can load it (see `hopper_module`).\n\
         pub const HOPPER: &str = include_str!({:?});",
        path_of(xtask::hopper::HOPPER_FILE)
    )
    .unwrap();
    code.push_str(
        "/// (cap, PTX): all entries under `.maxnreg cap`, no launch bounds; one per REGS cap.\n",
    );
    code.push_str("pub const CAPPED: &[(u32, &str)] = &[\n");
    for m in &written {
        if let ModuleKind::Capped { cap } = m.kind {
            writeln!(code, "    ({cap}, include_str!({:?})),", path_of(&m.file)).unwrap();
        }
    }
    code.push_str("];\n");
    std::fs::write(out.join("modules.rs"), code).expect("writing modules.rs");
}

fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "rustc (unknown)".into())
}
