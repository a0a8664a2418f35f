//! Marks the tests of nvcc's twin (`xtask/tests/twin*.rs`) that need a tool this machine may lack
//! as ignored, with the reason: `cfg(lab_nvcc)` is set where nvcc is found, `cfg(lab_cxx)` where
//! a C++ compiler is (`$CXX`, else `c++` on PATH).

use std::path::PathBuf;

#[path = "src/nvcc/find.rs"]
mod find;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(lab_nvcc)");
    println!("cargo:rustc-check-cfg=cfg(lab_cxx)");
    // What nvcc's search reads (ptxas_report::toolkit::NVCC), and the C++ compiler's variable.
    for var in ptxas_report::toolkit::NVCC
        .env_vars()
        .into_iter()
        .chain(["CXX"])
    {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=src/nvcc/find.rs");
    if find::find().is_some() {
        println!("cargo:rustc-cfg=lab_nvcc");
    }
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
    };
    let cxx = std::env::var_os("CXX").map(PathBuf::from);
    if cxx.is_some_and(|c| c.is_file() || on_path(&c.to_string_lossy())) || on_path("c++") {
        println!("cargo:rustc-cfg=lab_cxx");
    }
}
