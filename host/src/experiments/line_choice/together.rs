//! The short list timed together: every short-listed line's samples interleaved in rotating
//! rounds (`sampling::time_sampled`), as every comparison of the lab is timed. Timed one after
//! another, the lines met different clocks: under the H200's power cap the SM clock moves from
//! one figure to the next, enough to put the slower of two lines ahead (docs/design.md, the
//! choice). Then each line's output is checked: one more launch on a C filled with a
//! value no element comes near, every element against the reference. The chosen line is timed
//! again beside cuBLAS with every check a row gets.

use super::Trial;
use crate::cuda::{prepare, CudaError, Gpu, Kernel, LaunchShape};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm_sides::{
    gflops, GemmKind, GemmSides, Launcher, Side, SideLaunch, Who, TIMED, UNWRITTEN,
};
use crate::sampling::{time_sampled, Sampled, SamplingConfig};

/// A short-listed line as the timing launches it.
pub struct Contender<'s, 'k, E> {
    pub label: &'static str,
    pub kernel: &'s Kernel<'k>,
    pub shape: LaunchShape,
    pub launcher: Launcher<'s, E>,
}

/// The timing's view: side `i` is contender `i`, launched at alpha=1, beta=0 into ours's C.
struct Rounds<'a, 's, 'k, K: GemmKind> {
    gpu: &'a Gpu,
    sides: &'a mut GemmSides<K>,
    launches: &'a [SideLaunch<'s, 'k, K::Elem>],
}

impl<K: GemmKind> Sampled for Rounds<'_, '_, '_, K> {
    fn launch(&mut self, side: usize) -> Result<(), CudaError> {
        let who = Who::Kernel(&self.launches[side]);
        self.sides.launch_who(self.gpu, who, TIMED)
    }

    fn after_sample(&mut self, _: usize) -> Result<(), CudaError> {
        Ok(())
    }
}

/// Times `contenders` together by `plan` over `sides`' problem, then checks one launch of each;
/// a trial per contender, in order.
pub fn time_together<K: GemmKind>(
    gpu: &Gpu,
    sides: &mut GemmSides<K>,
    contenders: &[Contender<'_, '_, K::Elem>],
    plan: &SamplingConfig,
) -> Result<Vec<Trial>, ExperimentError> {
    if contenders.is_empty() {
        return Ok(Vec::new());
    }
    for c in contenders {
        prepare(c.kernel, c.shape).in_variant(c.label)?;
    }
    let launches: Vec<SideLaunch<'_, '_, K::Elem>> = (contenders.iter())
        .map(|c| SideLaunch {
            side: Side::Ours,
            kernel: c.kernel,
            shape: c.shape,
            launcher: c.launcher,
        })
        .collect();
    let mut rounds = Rounds {
        gpu,
        sides: &mut *sides,
        launches: &launches,
    };
    let timings = time_sampled(gpu, plan, launches.len(), &mut rounds)?;
    let mut trials = Vec::with_capacity(contenders.len());
    for ((c, how), timing) in contenders.iter().zip(&launches).zip(timings) {
        gpu.fill(sides.c_of(gpu, Side::Ours)?, UNWRITTEN)?;
        sides.launch_who(gpu, Who::Kernel(how), TIMED)?;
        let checked = (sides.check_side(gpu, Side::Ours, "one launch after the timing", TIMED))
            .in_variant(c.label)?;
        trials.push(Trial {
            label: c.label,
            gflops: gflops(sides.dims(), &timing),
            passed: checked.passed(),
        });
    }
    Ok(trials)
}
