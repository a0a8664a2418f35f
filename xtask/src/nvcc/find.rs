//! Where nvcc is. Also compiled into xtask's build script (`build.rs`), which marks the tests
//! that need nvcc as ignored where it finds none.

use std::path::{Path, PathBuf};

use ptxas_report::toolkit;

/// The nvcc to use: `$NVCC`, `$CUDA_PATH/bin/nvcc`, `nvcc` on PATH, then
/// `/usr/local/cuda/bin/nvcc` ([`toolkit::NVCC`]).
///
/// Unlike ptxas, pip's `nvidia-cuda-nvcc` wheel is not looked for in site-packages: pip pairs
/// it with the newest `nvidia-nvvm`, whose front end emits PTX that the wheel's ptxas refuses.
/// Installed with a matching nvvm (`nvcc::NOT_FOUND` says how), it is used through `$NVCC`.
pub fn find() -> Option<PathBuf> {
    toolkit::NVCC.find(&toolkit::ProcessEnv, &Path::is_file)
}
