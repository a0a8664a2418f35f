//! cuBLAS's reference row in a GEMM experiment, whatever the element type (SGEMM beside the FP32
//! lines, `cublasGemmEx` beside the BF16 ones): its samples pooled from the interleaved timing of
//! every line, its checks, the kernel it really ran (read through CUPTI, with that kernel's
//! theoretical occupancy by the lab's calculator), and how the row reads in a table and a plot.
//! A kernel that could not be read is recorded with the reason, never a failed run.

use serde::{Deserialize, Serialize};

use super::cells;
use super::contract::{Output, Row};
use super::error::{ExperimentError, InVariant};
use super::gemm_check::Checked;
use super::gemm_check_notes::note_under;
use super::gemm_sides::{GemmKind, GemmSides, Launcher};
use super::measurement::{flag_above_peak, Measurement, Peak};
use super::scatter::{named, occupancy_scatter, Axes, Reference};
use crate::cuda::library_kernel::unread;
use crate::cuda::{Cublas, CublasError, Gpu, Kernel, LaunchShape, LibraryKernel};
use crate::figure::{Figure, LabelledPoint, PlotRun, Series, XScale};
use crate::results::{Check, DeviceInfo, Timing};
use crate::sampling::{summarize, SamplingConfig};
use crate::table::{columns_table, extra_row, Column, TableData, Value};

/// The kernel cuBLAS ran for the run's problem, or why it is not known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CublasKernel {
    Read(Box<LibraryKernel>),
    /// CUPTI could not be had, recorded nothing, or recorded a kernel the calculator cannot
    /// place (the reason says which).
    Unread {
        reason: String,
    },
}

impl CublasKernel {
    /// The kernel, where it was read.
    pub fn kernel(&self) -> Option<&LibraryKernel> {
        match self {
            CublasKernel::Read(k) => Some(k),
            CublasKernel::Unread { .. } => None,
        }
    }
}

impl CublasRow {
    /// The kernel cuBLAS ran, where it was read.
    pub fn library_kernel(&self) -> Option<&LibraryKernel> {
        self.kernel.as_ref().and_then(CublasKernel::kernel)
    }

    /// Theoretical occupancy of the kernel cuBLAS ran, where it was read.
    pub fn occupancy(&self) -> Option<f64> {
        self.library_kernel().map(|k| k.occupancy)
    }

    /// What the run knows of the kernel cuBLAS ran, in words.
    pub fn kernel_words(&self) -> String {
        match &self.kernel {
            Some(CublasKernel::Read(k)) => k.describe(&format!("cuBLAS {}", self.version)),
            Some(CublasKernel::Unread { reason }) => reason.clone(),
            None => "the kernel cuBLAS ran was not recorded: a run made before the lab read it"
                .to_owned(),
        }
    }
}

/// cuBLAS beside a GEMM experiment's kernels: measured, or why not.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CublasOutcome {
    Measured(Box<CublasRow>),
    /// The library could not be loaded or set up (the message says why).
    Unavailable {
        reason: String,
    },
}

/// cuBLAS's GEMM of the problem's element type (SGEMM, or `cublasGemmEx` for BF16) on the same
/// buffers: the reference row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CublasRow {
    /// `cublasGetVersion`, major.minor.patch.
    pub version: String,
    /// The library file loaded.
    pub library: String,
    /// Every sample taken, across the variants it was interleaved with.
    pub timing: Timing,
    pub gflops: f64,
    pub check: Check,
    pub flags: Vec<String>,
    /// The kernel cuBLAS ran, read through CUPTI (or why not); absent in runs recorded before
    /// the lab read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<CublasKernel>,
}

impl CublasOutcome {
    /// The measured row, if any.
    pub fn measured(&self) -> Option<&CublasRow> {
        match self {
            CublasOutcome::Measured(r) => Some(r.as_ref()),
            CublasOutcome::Unavailable { .. } => None,
        }
    }
}

/// Why cuBLAS has no figures in a run, in words.
pub fn cublas_reason(c: &CublasOutcome) -> String {
    match c {
        CublasOutcome::Measured(m) => format!("cuBLAS {} measured", m.version),
        CublasOutcome::Unavailable { reason } if reason.starts_with("cuBLAS") => reason.clone(),
        CublasOutcome::Unavailable { reason } => format!("cuBLAS unavailable: {reason}"),
    }
}

/// cuBLAS's part of a run as the lines are measured: the library (when asked for, or why it
/// could not be loaded), its samples interleaved with each line's and the checks of its timed
/// launches.
pub struct CublasSide {
    opened: Option<Result<Cublas, CublasError>>,
    samples: Vec<f64>,
    checks: Vec<Checked>,
}

impl CublasSide {
    /// cuBLAS loaded on `gpu` when `asked` for.
    pub fn open(gpu: &Gpu, asked: bool) -> Self {
        Self {
            opened: asked.then(|| Cublas::open(gpu)),
            samples: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// The library to time beside the lines, where it was asked for and loaded.
    pub fn usable(&self) -> Option<&Cublas> {
        self.opened.as_ref().and_then(|c| c.as_ref().ok())
    }

    /// The median of cuBLAS's samples so far (every line's pooled), ms per call; None before
    /// any.
    pub fn median_ms(&self) -> Option<f64> {
        let mut s = self.samples.clone();
        (!s.is_empty()).then(|| crate::confidence::median(&mut s))
    }

    /// Times line `label`'s `kernels` in `sides` (launched as `launch` says: [`GemmSides::
    /// measure_by`]) with cuBLAS's samples interleaved where it is usable, and keeps cuBLAS's
    /// timing and checked output; gives ours, the compared module's, and ours over cuBLAS from
    /// the samples taken together.
    pub fn measure<K: GemmKind>(
        &mut self,
        gpu: &Gpu,
        sides: &mut GemmSides<K>,
        (label, kernels): (&str, (&Kernel<'_>, Option<&Kernel<'_>>)),
        launch: (LaunchShape, Launcher<'_, K::Elem>),
        plan: &SamplingConfig,
    ) -> Result<(Measurement, Option<Measurement>, Option<f64>), ExperimentError> {
        let m = sides
            .measure_by(gpu, kernels, launch, plan, self.usable())
            .in_variant(label)?;
        let vs_cublas = m.cublas.map(|(timing, mut checked)| {
            self.samples.extend_from_slice(&timing.samples_ms);
            checked.launch = format!("its last timed launch beside {label}");
            self.checks.push(checked);
            m.ours.throughput / sides.gflops(&timing)
        });
        Ok((m.ours, m.theirs, vs_cublas))
    }

    /// cuBLAS's row when it was asked for: every sample pooled, its timed outputs and
    /// one more call checked, its figure held to `peak`, and the kernel it ran read through
    /// CUPTI; or why it could not be loaded.
    pub fn finish<K: GemmKind>(
        self,
        gpu: &Gpu,
        sides: &mut GemmSides<K>,
        peak: Peak,
    ) -> Result<Option<CublasOutcome>, ExperimentError> {
        let c = match self.opened {
            None => return Ok(None),
            Some(Err(e)) => {
                return Ok(Some(CublasOutcome::Unavailable {
                    reason: e.to_string(),
                }))
            }
            Some(Ok(c)) => c,
        };
        let check = sides
            .verify_cublas(gpu, &c, self.checks)
            .in_variant("cuBLAS")?;
        let timing = summarize(self.samples, None, None);
        let gflops = sides.gflops(&timing);
        let mut flags = Vec::new();
        flag_above_peak(&mut flags, gflops, peak);
        // The kernel of one more cuBLAS call on the problem (into cuBLAS's own C).
        let kernel = match sides.cublas_kernel(gpu, &c) {
            Ok(k) => CublasKernel::Read(Box::new(k)),
            Err(e) => CublasKernel::Unread {
                reason: unread("cuBLAS", &e),
            },
        };
        Ok(Some(CublasOutcome::Measured(Box::new(CublasRow {
            version: c.version(),
            library: c.library().to_owned(),
            timing,
            gflops,
            check,
            flags,
            kernel: Some(kernel),
        }))))
    }
}

/// A GEMM run of rows timed beside cuBLAS ([`cublas_run_output!`] implements it).
pub trait CublasRun: Output {
    /// What follows cuBLAS's version where its row is named (e.g. " BF16").
    const SUFFIX: &'static str;
    fn cublas_outcome(&self) -> Option<&CublasOutcome>;
}

/// [`Output`] and [`CublasRun`] for a GEMM run of `$row`s timed beside cuBLAS (fields `rows`,
/// and `cublas`, the [`CublasOutcome`]), with its `cublas_row`: cuBLAS's GFLOP/s is the merged
/// table's reference, named "cuBLAS" and `$suffix`, as is its failed check.
macro_rules! cublas_run_output {
    ($run:ty, $row:ty, $suffix:literal) => {
        impl $run {
            /// cuBLAS's row, where it was measured.
            pub fn cublas_row(&self) -> Option<&$crate::experiments::gemm_cublas::CublasRow> {
                self.cublas
                    .as_ref()
                    .and_then($crate::experiments::gemm_cublas::CublasOutcome::measured)
            }
        }

        impl $crate::experiments::gemm_cublas::CublasRun for $run {
            const SUFFIX: &'static str = $suffix;
            fn cublas_outcome(&self) -> Option<&$crate::experiments::gemm_cublas::CublasOutcome> {
                self.cublas.as_ref()
            }
        }

        impl $crate::experiments::contract::Output for $run {
            type Row = $row;
            fn rows(&self) -> &[$row] {
                &self.rows
            }
            /// cuBLAS's GFLOP/s, where it was measured.
            fn reference(&self) -> Option<(&'static str, f64)> {
                self.cublas_row()
                    .map(|c| (concat!("cuBLAS", $suffix), c.gflops))
            }
            /// cuBLAS's failed check, where it was measured and failed.
            fn other_failures(&self) -> Vec<String> {
                let mut out = Vec::new();
                if let Some(c) = self.cublas_row() {
                    let name = format!("cuBLAS {}{}", c.version, $suffix);
                    $crate::experiments::measured::push_failed(&name, &c.check, &mut out);
                }
                out
            }
        }
    };
}
pub(crate) use cublas_run_output;

/// The header of the column of ours over cuBLAS, shown only where cuBLAS was asked for.
pub const VS_CUBLAS: &str = "Ours/cuBLAS";

/// A GEMM experiment's table under `title` (with cuBLAS's version and library, or why cuBLAS did
/// not run): `output`'s rows in `columns`, cuBLAS's row where it was asked for (called as `how`:
/// [`push_row`]), and the note on every check (each row's, the compared module's and cuBLAS's)
/// under `rule`.
pub fn gemm_table<O: CublasRun>(
    output: &O,
    title: String,
    columns: Vec<Column<O::Row>>,
    how: &str,
    rule: impl FnOnce() -> String,
) -> TableData {
    let outcome = output.cublas_outcome();
    let columns: Vec<Column<O::Row>> = columns
        .into_iter()
        .filter(|c| outcome.is_some() || c.header != VS_CUBLAS)
        .collect();
    let title = match outcome.map(|c| (c, c.measured())) {
        None => title,
        Some((_, Some(m))) => format!("{title}; cuBLAS {} ({})", m.version, m.library),
        Some((c, None)) => format!("{title}; {}", cublas_reason(c)),
    };
    let mut t = columns_table(&title, &columns, output.rows());
    if let Some(c) = outcome {
        push_row(&mut t, c, how);
    }
    let checks = output
        .rows()
        .iter()
        .map(Row::measured)
        .flat_map(|m| std::iter::once(&m.check).chain(m.compare.as_ref().map(|c| &c.check)));
    let cublas = outcome.and_then(CublasOutcome::measured);
    let checks = checks.chain(cublas.map(|c| &c.check));
    t.notes.extend(note_under(checks, rule));
    t
}

/// The headers of the columns cuBLAS's row fills: its figures, and the kernel it ran in the
/// columns of ours.
const VARIANT: &str = "Variant";
const RATE: &str = "GFLOP/s";
const MS_PER_CALL: &str = "ms/call";
const VERIFIED: &str = "Verified";
const THREADS: &str = "Threads/block";
const REGS: &str = "Regs/thread";
const OCCUPANCY: &str = "Theo. occ";
const BLOCKS: &str = "Blocks/SM";
const LIMITER: &str = "Limiter";

/// Appends cuBLAS's row to `t` (its figures, and the kernel it ran in the columns of ours:
/// block size, registers, occupancy, blocks/SM, limiter), with `how` (how it was called) and
/// the kernel in words as notes; or, when it could not be loaded, a row saying why.
fn push_row(t: &mut TableData, outcome: &CublasOutcome, how: &str) {
    let c = match outcome {
        CublasOutcome::Measured(c) => c,
        CublasOutcome::Unavailable { .. } => {
            let why = cublas_reason(outcome);
            extra_row(t, "cuBLAS", &[], &[(VARIANT, Value::Text(why))]);
            return;
        }
    };
    let name = match c.library_kernel() {
        Some(k) => format!("cuBLAS {}: {}", c.version, k.kernel.name),
        None => format!("cuBLAS {}", c.version),
    };
    let mut values = vec![
        (VARIANT, Value::Text(name)),
        (RATE, cells::rate(c.gflops, &c.flags)),
        (MS_PER_CALL, cells::timing(&c.timing)),
        (VERIFIED, cells::check(&c.check)),
        (VS_CUBLAS, Value::Float(1.0)),
    ];
    if let Some(k) = c.library_kernel() {
        values.extend([
            (THREADS, Value::Int(k.kernel.threads_per_block().into())),
            (REGS, Value::Int(k.kernel.registers_per_thread.into())),
            (OCCUPANCY, Value::Float(k.occupancy)),
            (BLOCKS, Value::Int(k.blocks_per_sm.into())),
            (LIMITER, Value::Text(k.limiter.clone())),
        ]);
    }
    extra_row(t, "cuBLAS", &c.flags, &values);
    t.notes.push(format!("cuBLAS: {how}"));
    t.notes
        .push(format!("cuBLAS's kernel: {}.", c.kernel_words()));
}

/// A GEMM experiment's plot under `title`: GFLOP/s over theoretical occupancy (each row named by
/// `row_name`), each run's `peak` and cuBLAS as lines, and in one run's plot (merged plots keep
/// the line) the kernel cuBLAS ran as a point at its occupancy.
pub fn gemm_figures<'r, O: CublasRun>(
    name: &str,
    title: String,
    runs: &[PlotRun<'r, O>],
    row_name: impl Fn(&'r O::Row) -> &'r str,
    peak: impl Fn(&DeviceInfo) -> Option<Reference>,
) -> Vec<(String, Figure)> {
    let axes = Axes::new(
        title,
        ("Theoretical occupancy (%)", XScale::Linear),
        "GFLOP/s",
    );
    let cublas = |o: &'r O| o.cublas_outcome().and_then(CublasOutcome::measured);
    let references = |run: &PlotRun<'r, O>| {
        let c = cublas(run.output).map(|c| {
            Reference::measured(
                format!("cuBLAS {}{}", c.version, O::SUFFIX),
                c.gflops,
                0,
                "",
            )
        });
        peak(run.device).into_iter().chain(c).collect()
    };
    let mut figure = occupancy_scatter(runs, axes, row_name, references);
    if let [run] = runs {
        if let Some(c) = cublas(run.output) {
            let series = format!("cuBLAS {}{} kernel", c.version, O::SUFFIX);
            plot_point(&mut figure, series, c);
        }
    }
    named(name, figure)
}

/// Adds the kernel cuBLAS ran to an occupancy plot as a point at its theoretical occupancy
/// (x in %), in a series of its own named `series`; nothing where its kernel was not read.
fn plot_point(figure: &mut Option<Figure>, series: String, c: &CublasRow) {
    let (Some(Figure::Scatter(plot)), Some(occupancy)) = (figure.as_mut(), c.occupancy()) else {
        return;
    };
    plot.series.push(Series {
        name: series,
        points: vec![LabelledPoint {
            x: occupancy * 100.0,
            y: c.gflops,
            label: Some(format!("cuBLAS {}", c.version)),
        }],
        line: false,
        markers: true,
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cuda::KernelRecord;
    use crate::table::{to_csv, Kind, TableRow};

    /// A kernel as CUPTI would record cuBLAS's: 384 threads, 168 registers, 200 KiB of shared
    /// memory (one block of 12 warps out of 64 on sm_90), clusters of 2.
    pub fn record(name: &str) -> KernelRecord {
        KernelRecord {
            name: name.into(),
            grid: [66, 2, 1],
            block: [384, 1, 1],
            registers_per_thread: 168,
            static_shared_bytes: 0,
            dynamic_shared_bytes: 200 * 1024,
            local_bytes_per_thread: 0,
            cluster: [2, 1, 1],
            shared_memory_executed: 233_472,
            duration_ns: 1_000_000,
        }
    }

    /// cuBLAS's row at `gflops` over `samples` (ms), with `kernel` read (at the calculator's
    /// occupancy of [`record`] on sm_90) or not.
    pub fn cublas_row(gflops: f64, samples: Vec<f64>, kernel: Option<&str>) -> CublasRow {
        let limits = crate::occupancy::Arch::Sm90.limits();
        let kernel = match kernel {
            Some(name) => {
                let k = LibraryKernel::on_limits(&limits, vec![record(name)]).unwrap();
                CublasKernel::Read(Box::new(k))
            }
            None => CublasKernel::Unread {
                reason: "the kernel cuBLAS ran was not read: CUPTI not found".into(),
            },
        };
        CublasRow {
            version: "13.1.0".into(),
            library: "libcublas.so.13".into(),
            timing: summarize(samples, None, None),
            gflops,
            check: Check {
                passed: true,
                error: 1e-7,
                bound: 1e-4,
                what: "every element".into(),
                hashes: None,
            },
            flags: vec![],
            kernel: Some(kernel),
        }
    }

    /// A table with no rows of its own, for cuBLAS's row alone.
    struct NoRow;

    impl TableRow for NoRow {
        fn label(&self) -> String {
            String::new()
        }
        fn flags(&self) -> &[String] {
            &[]
        }
        fn compared(&self) -> bool {
            false
        }
    }

    fn table(outcome: &CublasOutcome) -> TableData {
        let columns: Vec<Column<NoRow>> = vec![
            Column::new("Variant", Kind::Text, |_| Value::Empty),
            Column::new(THREADS, Kind::Count, |_| Value::Empty),
            Column::new(REGS, Kind::Count, |_| Value::Empty),
            Column::new(OCCUPANCY, Kind::Percent, |_| Value::Empty),
            Column::new(
                "GFLOP/s",
                Kind::Rate {
                    unit: "GFLOP/s",
                    decimals: 0,
                },
                |_| Value::Empty,
            ),
        ];
        let mut t = columns_table("t", &columns, &[]);
        push_row(&mut t, outcome, "how it was called.");
        t
    }

    #[test]
    fn cublas_row_shows_the_kernel_it_ran_and_its_occupancy() {
        let row = cublas_row(600_000.0, vec![0.23, 0.24], Some("nvjet_tst_128x256"));
        assert!((row.occupancy().unwrap() - 12.0 / 64.0).abs() < 1e-12);
        let t = table(&CublasOutcome::Measured(Box::new(row)));
        let csv = to_csv(&t);
        let last = csv.lines().last().unwrap();
        assert!(
            last.starts_with("cuBLAS 13.1.0: nvjet_tst_128x256,384,168,18.75,600000"),
            "{csv}"
        );
        let notes = t.notes.join("\n");
        for part in [
            "clusters of 2x1x1",
            "204800 B dynamic",
            "18.8% theoretical occupancy",
        ] {
            assert!(notes.contains(part), "{notes}");
        }
    }

    #[test]
    fn a_kernel_not_read_leaves_its_cells_empty_and_says_why() {
        let row = cublas_row(600_000.0, vec![0.23], None);
        assert_eq!(row.occupancy(), None);
        let t = table(&CublasOutcome::Measured(Box::new(row.clone())));
        let csv = to_csv(&t);
        let last = csv.lines().last().unwrap();
        assert!(last.starts_with("cuBLAS 13.1.0,,,,600000"), "{csv}");
        assert!(t.notes.iter().any(|n| n.contains("CUPTI not found")));
        // Stored and read back with the reason.
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["kernel"]["status"], "unread");
        assert_eq!(serde_json::from_value::<CublasRow>(json).unwrap(), row);
        // A run recorded before the kernel was read has no kernel and says so.
        let old = CublasRow {
            kernel: None,
            ..row
        };
        assert!(old.kernel_words().contains("not recorded"));
        let unavailable = CublasOutcome::Unavailable {
            reason: "cuBLAS not found".into(),
        };
        assert!(to_csv(&table(&unavailable)).contains("cuBLAS not found"));
    }

    #[test]
    fn the_kernel_is_a_point_at_its_occupancy() {
        let plot = crate::figure::ScatterPlot {
            labels: crate::figure::Labels::new("", "", ""),
            x_scale: crate::figure::XScale::Linear,
            x_unit_suffix: "%".into(),
            series: vec![],
            references: vec![],
        };
        let mut figure = Some(Figure::Scatter(plot));
        plot_point(
            &mut figure,
            "unread".into(),
            &cublas_row(1.0, vec![1.0], None),
        );
        let read = cublas_row(5.0, vec![1.0], Some("k"));
        plot_point(&mut figure, "cuBLAS kernel".into(), &read);
        let Some(Figure::Scatter(p)) = figure else {
            panic!()
        };
        assert_eq!(p.series.len(), 1);
        let point = &p.series[0].points[0];
        assert_eq!((point.x, point.y), (18.75, 5.0));
    }
}
