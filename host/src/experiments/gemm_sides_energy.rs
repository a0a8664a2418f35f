//! The energy phase's view of a GEMM problem's sides (`gemm_energy.rs`): one of the lab's kernels
//! or cuBLAS, prepared, launched as the timing launches it, and its C checked after its windows.

use super::gemm_sides::{GemmKind, GemmSides, Launcher, Side, SideLaunch, Who, TIMED, UNWRITTEN};
use crate::cuda::{prepare, Cublas, CudaError, Gpu, Kernel, LaunchShape};
use crate::results::Check;

/// A side of the energy phase (`gemm_energy.rs`): one of the lab's kernels, launched into
/// ours's C, or cuBLAS, into its own.
pub enum EnergyLaunch<'s, 'k, E> {
    Kernel {
        kernel: &'s Kernel<'k>,
        shape: LaunchShape,
        launcher: Launcher<'s, E>,
    },
    Cublas(&'s Cublas),
}

/// Whose C an energy side writes.
fn energy_side<E>(launch: &EnergyLaunch<'_, '_, E>) -> Side {
    match launch {
        EnergyLaunch::Kernel { .. } => Side::Ours,
        EnergyLaunch::Cublas(_) => Side::Cublas,
    }
}

impl<K: GemmKind> GemmSides<K> {
    /// Calls `f` with `launch` as the timing's view of it.
    fn as_who<T>(
        launch: &EnergyLaunch<'_, '_, K::Elem>,
        f: impl FnOnce(Who<'_, '_, '_, K::Elem>) -> T,
    ) -> T {
        match launch {
            EnergyLaunch::Kernel {
                kernel,
                shape,
                launcher,
            } => {
                let how = SideLaunch {
                    side: Side::Ours,
                    kernel,
                    shape: *shape,
                    launcher: *launcher,
                };
                f(Who::Kernel(&how))
            }
            EnergyLaunch::Cublas(c) => f(Who::Cublas(c)),
        }
    }

    /// Before an energy window of `launch`: the kernel prepared for its shape, and its C filled
    /// with a value no correct element comes near (another side's output must not pass for it).
    pub fn energy_before(
        &mut self,
        gpu: &Gpu,
        launch: &EnergyLaunch<'_, '_, K::Elem>,
    ) -> Result<(), CudaError> {
        if let EnergyLaunch::Kernel { kernel, shape, .. } = launch {
            prepare(kernel, *shape)?;
        }
        let side = energy_side(launch);
        gpu.fill(self.c_of(gpu, side)?, UNWRITTEN)
    }

    /// Enqueues one launch of `launch` as the timing launches it (alpha=1, beta=0).
    pub fn energy_launch(
        &mut self,
        gpu: &Gpu,
        launch: &EnergyLaunch<'_, '_, K::Elem>,
    ) -> Result<(), CudaError> {
        Self::as_who(launch, |who| self.launch_who(gpu, who, TIMED))
    }

    /// Every element of `launch`'s C after its window (its last launch), judged as the timed
    /// launches are.
    pub fn energy_check(
        &self,
        gpu: &Gpu,
        launch: &EnergyLaunch<'_, '_, K::Elem>,
    ) -> Result<Check, CudaError> {
        let side = energy_side(launch);
        let checked = self.check_side(gpu, side, "the last launch of its energy window", TIMED)?;
        Ok(K::record(self.dims(), &[checked]))
    }
}
