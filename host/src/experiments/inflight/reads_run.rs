//! The read-only kernels on the GPU ([`super::reads`]): each at the residencies its copy's
//! verified rows were held at, over the copy's own source, timed (the compared module's build
//! interleaved where it has the entry) and every warp's sum checked against the CPU's.

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{ReadParams, ReadPoint, READ};

use super::reads::{check_sums, expected_sums, read_gbps, ReadOnly, ReadRow};
use super::row::{usable, InflightRow};
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::experiments::contract::RunContext;
use crate::experiments::copy::{CopyBuffers, MAX_GRID_X};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::module_source::Loaded;
use crate::experiments::residency::hold_at_blocks;
use crate::results::Check;
use crate::sampling::{time_sides, Side};

/// Runs every read line beside the usable copy rows of its point; None when no row has a read
/// beside it. Read lines that cannot run (not in our module, too many blocks) are left out with
/// a note.
pub fn measure_reads(
    gpu: &Gpu,
    ctx: &RunContext,
    (ours, theirs): (&Loaded, Option<&Loaded>),
    buffers: &CopyBuffers,
    (rows, reference_gbps): (&[InflightRow], f64),
) -> Result<(Option<ReadOnly>, Vec<String>), ExperimentError> {
    let (src, src_host) = buffers.source();
    let n = src_host.len() as u64;
    let mut skipped = Vec::new();
    let mut out = Vec::new();
    for point in READ {
        let beside: Vec<&InflightRow> = usable(rows)
            .filter(|r| r.entry == point.copy.entry)
            .collect();
        if beside.is_empty() {
            continue;
        }
        let Ok(kernel) = ours.module.kernel(point.entry) else {
            skipped.push(format!("{}: not in the module", point.entry));
            continue;
        };
        if point.grid(n) > MAX_GRID_X {
            skipped.push(format!("{}: more blocks than a grid holds", point.entry));
            continue;
        }
        // The compared module may lack the read lines (the peer's has none): ours runs alone.
        let other = theirs.and_then(|t| t.module.kernel(point.entry).ok());
        let want = expected_sums(src_host, point);
        for copy in beside {
            let what = format!("{} at {} blocks/SM", point.entry, copy.blocks_per_sm);
            // Fewer registers than its copy, so it is held wherever the copy was; if not, the
            // row is left out with the reason rather than ending the experiment.
            if let Err(e) = hold_at_blocks(&kernel, point.threads, copy.blocks_per_sm, gpu.limits())
            {
                skipped.push(format!("{what}: {e}"));
                continue;
            }
            let sides = Sides {
                point,
                src,
                n,
                blocks_per_sm: copy.blocks_per_sm,
            };
            let (mine, compared) = sides
                .measure(gpu, ctx, (&kernel, other.as_ref()), &want)
                .in_variant(&what)?;
            let gbps = read_gbps(n * 4, mine.0.median_ms);
            out.push(ReadRow {
                entry: point.entry.to_owned(),
                copy_entry: copy.entry.clone(),
                blocks_per_sm: copy.blocks_per_sm,
                warps_per_sm: copy.warps_per_sm,
                bytes_in_flight_per_sm: copy.bytes_in_flight_per_sm,
                gbps,
                fraction_of_reference: gbps / reference_gbps,
                copy_gbps: copy.gbps,
                copy_fraction: copy.gbps / reference_gbps,
                timing: mine.0,
                check: mine.1,
                compared_gbps: compared.as_ref().map(|c| read_gbps(n * 4, c.0.median_ms)),
                compared_check: compared.map(|c| c.1),
            });
        }
    }
    let section = (!out.is_empty()).then_some(ReadOnly {
        reference_gbps,
        rows: out,
    });
    Ok((section, skipped))
}

/// One read point over the copy's source, held at a number of blocks per SM.
struct Sides<'a> {
    point: &'a ReadPoint,
    src: &'a CudaSlice<f32>,
    n: u64,
    blocks_per_sm: u32,
}

/// A side's timing and check.
type Timed = (crate::results::Timing, Check);

impl Sides<'_> {
    /// Times our kernel (and the compared one, interleaved), then checks one launch of each.
    fn measure(
        &self,
        gpu: &Gpu,
        ctx: &RunContext,
        (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
        want: &[u64],
    ) -> Result<(Timed, Option<Timed>), ExperimentError> {
        let threads = self.point.threads;
        let limits = gpu.limits();
        let ours_smem = hold_at_blocks(kernel, threads, self.blocks_per_sm, limits)?;
        // The compared build may not be holdable at this residency: ours then runs alone.
        let theirs = other.and_then(|k| {
            hold_at_blocks(k, threads, self.blocks_per_sm, limits)
                .ok()
                .map(|s| (k, s))
        });
        let mut sums = gpu.zeros::<u64>(self.point.words(self.n) as usize)?;
        let (timing, compared) = time_sides(gpu, &ctx.timing, theirs.is_some(), |side| {
            match (side, theirs) {
                (Side::Theirs, Some((k, smem))) => self.launch(gpu, k, smem, &mut sums),
                _ => self.launch(gpu, kernel, ours_smem, &mut sums),
            }
        })?;
        let mine = (timing, self.check(gpu, kernel, ours_smem, want)?);
        let compared = match (theirs, compared) {
            (Some((k, smem)), Some(t)) => Some((t, self.check(gpu, k, smem, want)?)),
            _ => None,
        };
        Ok((mine, compared))
    }

    /// One fresh launch into zeroed words, checked against `want`.
    fn check(
        &self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        dyn_smem: u32,
        want: &[u64],
    ) -> Result<Check, CudaError> {
        let mut sums = gpu.zeros::<u64>(want.len())?;
        self.launch(gpu, kernel, dyn_smem, &mut sums)?;
        gpu.synchronize()?;
        let got = gpu.download(&sums)?;
        Ok(check_sums(want, &got, self.point.threads))
    }

    fn launch(
        &self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        dyn_smem: u32,
        sums: &mut CudaSlice<u64>,
    ) -> Result<(), CudaError> {
        let shape = LaunchShape {
            grid: (self.point.grid(self.n) as u32, 1),
            threads: self.point.threads,
            dyn_smem,
        };
        let mut l = Launch::new(gpu);
        let params = ReadParams {
            src: l.input(self.src),
            n: self.n,
            out: l.output(sums),
        };
        // SAFETY: `src` holds n floats (256-byte aligned, as the vector loads need), `sums` one
        // word per warp of this grid (`ReadPoint::words`), and the grid is the copy's
        // ceil(n / floats per block) blocks of the line's threads (whole warps, checked by the
        // table).
        unsafe { l.launch(kernel, shape, &params) }
    }
}
