//! Whether this machine has the NVIDIA driver's `libcuda` (what the host loads at run time),
//! without loading it: the host's build script marks GPU-only tests with it, and
//! `cargo xtask sweep` checks it before building anything.

use std::path::Path;

/// Folders the driver's library is usually installed in.
const LIB_DIRS: [&str; 4] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/local/nvidia/lib64",
    "/usr/lib/wsl/lib",
];

/// Whether `libcuda` is listed by `ldconfig -p` or present in a usual folder.
pub fn installed() -> bool {
    let listed = std::process::Command::new("ldconfig")
        .arg("-p")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so"))
        .unwrap_or(false);
    listed
        || LIB_DIRS
            .iter()
            .any(|d| Path::new(d).join("libcuda.so.1").exists())
}
