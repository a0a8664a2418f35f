//! The run's record ([`RunMeta`]): the date, the command, the toolchain, how figures were timed,
//! where the kernels came from and the sizes each experiment ran at.

use super::registry::Planned;
use crate::flags::{DEFAULT_COPY_MIB, DEFAULT_GEMM_SIZE};
use crate::kernel_source::name::RunModules;
use crate::results::RunMeta;
use crate::sampling::SamplingConfig;

/// The run's record: the date, the command, the toolchain and where the kernels came from.
pub fn meta(
    command: &str,
    timing: &SamplingConfig,
    experiments: &[Planned],
    gpu_driver: &str,
) -> RunMeta {
    let modules: Vec<_> = experiments
        .iter()
        .map(|e| (e.name(), e.modules()))
        .collect();
    let ours = modules.iter().map(|(name, m)| (*name, m.ours.clone()));
    let theirs = modules
        .iter()
        .filter_map(|(name, m)| Some((*name, m.theirs.clone()?)));
    let label = modules.iter().find_map(|(_, m)| m.label.clone());
    let mut meta = RunMeta {
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        command: command.to_owned(),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        toolchain: format!(
            "built-in kernels: {} ({} PTX); PTX compiled for the device by the JIT of the {} \
             driver",
            crate::kernel_source::builtin::RUSTC,
            crate::kernel_source::builtin::PTX_ARCH,
            gpu_driver
        ),
        module: RunModules::of(ours.collect()).unwrap_or_default(),
        compare_module: RunModules::of(theirs.collect()),
        compare_label: label,
        iters: timing.fixed().map_or(0, |p| p.iters),
        samples: timing.fixed().map_or(0, |p| p.samples),
        noise_target: timing.noise_target(),
        gemm_size: DEFAULT_GEMM_SIZE,
        gemm_dims: None,
        regs_variant: None,
        copy_bytes: DEFAULT_COPY_MIB << 20,
    };
    for e in experiments {
        e.record(&mut meta);
    }
    meta
}
