//! One sampled launch of a persistent copy on the GPU (`sections/copy_samples.rs`), after its
//! timed ones and outside their samples: the line's `_sampled` entry held at the same blocks/SM,
//! the copy samples' words zeroed before it and read after it, its copy checked exactly as the
//! timed copy's, and the launch timed by events (one launch: the recording's own cost shows
//! against the timed GB/s). The stamps' arithmetic is [`super::samples`].

use kernels_gpu::sections::copy_samples::{
    WarpSamples, SAMPLES_SYMBOL, SAMPLE_BLOCKS, WORDS_PER_BLOCK,
};
use kernels_gpu::variants::PersistentCopyLine;

use super::chase_run::elapsed_ms;
use super::samples::{stamp_figures, CopySamples};
use crate::cuda::Gpu;
use crate::experiments::copy::{copy_gbps, CopyBuffers, CopyKernel};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::module_source::Loaded;

/// What one sampled launch gave: its figures, or why there are none (a module without the
/// sampled build, a grid past the samples' blocks, stamps that cannot be read).
pub type Sampling = Result<CopySamples, String>;

/// Runs `line`'s sampled entry of `ours` once over `buffers` at `blocks_per_sm`, checked and
/// read back. Errors of the GPU stop the run; a launch whose stamps cannot be used gives the
/// reason instead of figures.
pub fn measure_sampled(
    gpu: &Gpu,
    buffers: &mut CopyBuffers,
    ours: &Loaded,
    line: &PersistentCopyLine,
    blocks_per_sm: u32,
) -> Result<Sampling, ExperimentError> {
    let entry = line.sampled;
    let Ok(kernel) = ours.module.kernel(entry) else {
        return Ok(Err(format!("{entry}: not in our module")));
    };
    let blocks = line.grid(blocks_per_sm, gpu.info().sm_count);
    if blocks > SAMPLE_BLOCKS as u64 {
        return Ok(Err(format!(
            "{entry}: {blocks} blocks, past the {SAMPLE_BLOCKS} the samples hold"
        )));
    }
    let words = blocks as usize * WORDS_PER_BLOCK;
    let Some(global) = ours.module.global(SAMPLES_SYMBOL).in_variant(entry)? else {
        return Ok(Err(format!("our module has no global `{SAMPLES_SYMBOL}`")));
    };
    let held = buffers
        .hold(gpu, &kernel, CopyKernel::Persistent(line), blocks_per_sm)
        .in_variant(entry)?;
    buffers.clear(gpu).in_variant(entry)?;
    global.zero(gpu.stream(), words).in_variant(entry)?;
    let (start, end) = (gpu.event()?, gpu.event()?);
    gpu.record(&start)?;
    buffers.launch(gpu, &held).in_variant(entry)?;
    gpu.record(&end)?;
    gpu.synchronize().in_variant(entry)?;
    let ms = elapsed_ms(&start, &end)?;
    let check = buffers.check_and_clear(gpu, line.width).in_variant(entry)?;
    // The stream is idle: synchronized above, with the launch time limit.
    let read = global.read_words(words).in_variant(entry)?;
    let warps: Vec<WarpSamples> = read
        .chunks_exact(WORDS_PER_BLOCK)
        .map(|w| WarpSamples::from_words(w.try_into().expect("chunks of WORDS_PER_BLOCK")))
        .collect();
    Ok(match stamp_figures(&warps) {
        Ok(f) => Ok(CopySamples {
            warps: f.warps,
            rounds: f.rounds,
            outstanding: f.outstanding,
            latency_cycles: f.latency_cycles,
            clock_ghz: f.clock_ghz,
            gbps: copy_gbps(buffers.bytes(), ms),
            check,
        }),
        Err(e) => Err(format!("{entry}: the stamps cannot be used: {e}")),
    })
}
