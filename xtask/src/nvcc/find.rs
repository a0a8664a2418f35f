//! Where nvcc is. Also compiled into xtask's build script (`build.rs`), which marks the tests
//! that need nvcc as ignored where it finds none.

use std::path::{Path, PathBuf};

/// The nvcc to use: `$NVCC`, `$CUDA_PATH/bin/nvcc`, `nvcc` on PATH, then
/// `/usr/local/cuda/bin/nvcc`.
///
/// Unlike ptxas, pip's `nvidia-cuda-nvcc` wheel is not looked for in site-packages: pip pairs
/// it with the newest `nvidia-nvvm`, whose front end emits PTX that the wheel's ptxas refuses.
/// Installed with a matching nvvm (`nvcc::NOT_FOUND` says how), it is used through `$NVCC`.
pub fn find() -> Option<PathBuf> {
    let exe = |p: PathBuf| p.is_file().then_some(p);
    if let Some(p) = std::env::var_os("NVCC").map(PathBuf::from).and_then(exe) {
        return Some(p);
    }
    if let Some(p) = std::env::var_os("CUDA_PATH").and_then(|c| exe(Path::new(&c).join("bin/nvcc")))
    {
        return Some(p);
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(p) = std::env::split_paths(&path).find_map(|d| exe(d.join("nvcc"))) {
            return Some(p);
        }
    }
    exe(PathBuf::from("/usr/local/cuda/bin/nvcc"))
}
