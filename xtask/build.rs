//! Marks the tests that need nvcc (nvcc's twin of the kernels, `xtask/tests/twin.rs`) as ignored,
//! with the reason, where no nvcc is found: `cfg(lab_nvcc)` is set when one is.

#[path = "src/nvcc/find.rs"]
mod find;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(lab_nvcc)");
    for var in ["NVCC", "CUDA_PATH", "PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=src/nvcc/find.rs");
    if find::find().is_some() {
        println!("cargo:rustc-cfg=lab_nvcc");
    }
}
