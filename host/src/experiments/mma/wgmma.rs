//! The `mma` experiment's second table: Hopper's warpgroup MMA (`wgmma.mma_async` m64nNk16 BF16,
//! the variant table's `wgmma_bf16` lines in the sm_90a module) against warpgroups per SM, shape N
//! and commit groups in flight; TFLOP/s and the share of the dense BF16 spec peak; every output
//! element of every timed launch checked bit for bit against the CPU model
//! (`kernels_gpu::models::wgmma_tile`). On a device other than compute capability 9.0 the table
//! says "needs sm_90a" and runs nothing.
//!
//! CPU side: the typed rows, the tile check, the columns and notes. The run is [`super::wgmma_run`].

use kernels_gpu::models::wgmma_tile::WgmmaTile;
use kernels_gpu::variants::WgmmaVariant;
use serde::{Deserialize, Serialize};

use crate::cuda::tensor_peak::peak_bf16_dense_gflops;
use crate::experiments::cells::{self, HasComparison};
use crate::experiments::contract::TFLOPS;
use crate::experiments::ilp_sweep::{count, mean_clock_mhz};
use crate::experiments::verify::exact_check;
use crate::results::{Check, Comparison, DeviceInfo, Timing};
use crate::table::{
    columns_table, percent, percent_with, Column, Kind, TableData, TableRow, Value,
};

/// Warpgroups per SM the table holds by default: one to four (one per scheduler quadrant) and
/// eight.
pub const DEFAULT_WARPGROUPS_PER_SM: [u32; 5] = [1, 2, 3, 4, 8];
/// MMAs each warpgroup issues per launch: milliseconds at the peak, and few enough that every
/// sum stays exact (16 products of magnitude at most 1 per MMA, under 2^24).
pub const MMAS_PER_WARPGROUP: u32 = 1 << 14;

/// The share of the dense BF16 spec peak a figure is, at the SM clock read around its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockedShare {
    /// SM clock during the samples (MHz), None where it could not be read.
    pub sm_clock_mhz: Option<f64>,
    /// Dense BF16 spec peak at that clock (or at the maximum clock where it could not be read),
    /// None on an architecture whose rate the lab does not know.
    pub spec_peak_tflops: Option<f64>,
    /// The figure over `spec_peak_tflops`.
    pub fraction_of_spec: Option<f64>,
}

impl ClockedShare {
    /// `tflops` timed by `timing` on `info`'s device; with a flag when the clock was unreadable.
    pub fn of(info: &DeviceInfo, timing: &Timing, tflops: f64) -> (Self, Option<String>) {
        let clock = mean_clock_mhz(timing);
        let clock_khz = clock.map_or(info.sm_clock_khz, |m| (m * 1000.0) as u32);
        let spec = peak_bf16_dense_gflops(info.compute_capability, info.sm_count, clock_khz)
            .map(|g| g / 1e3);
        let flag = clock
            .is_none()
            .then(|| "SM clock not readable: % of spec at the maximum clock".to_owned());
        let share = ClockedShare {
            sm_clock_mhz: clock,
            spec_peak_tflops: spec,
            fraction_of_spec: spec.map(|s| tflops / s),
        };
        (share, flag)
    }
}

/// One wgmma line at one residency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WgmmaRow {
    /// The line's entry, `wgmma_bf16_n{N}_g{GROUPS}`.
    pub entry: String,
    /// N of m64nNk16.
    pub n: u32,
    /// Commit groups issued before each `wait_group 0`.
    pub groups: u32,
    /// Resident warpgroups (blocks) per SM, as the occupancy API confirms them.
    pub warpgroups_per_sm: u32,
    /// Resident threads over the SM's maximum.
    pub occupancy: f64,
    /// Registers a thread, as the driver loaded the entry.
    pub regs: u32,
    /// Dynamic shared memory a block, what holds the residency.
    pub dyn_smem_bytes: u32,
    /// Rounds per warpgroup (each `groups` MMAs).
    pub iters: u32,
    /// Dense BF16 TFLOP/s of the median sample.
    pub tflops: f64,
    /// Its share of the spec peak.
    #[serde(flatten)]
    pub share: ClockedShare,
    /// The samples.
    pub timing: Timing,
    /// Every element of every block's tile against the model.
    pub check: Check,
    /// The compared build's entry at the same launch, timed and checked as ours (none without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared: Option<Comparison>,
    /// Warnings about the figures (an unreadable clock, a residency the driver did not confirm).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

impl HasComparison for WgmmaRow {
    fn comparison(&self) -> Option<&Comparison> {
        self.compared.as_ref()
    }
}

impl TableRow for WgmmaRow {
    fn label(&self) -> String {
        format!("{} at {} warpgroups/SM", self.entry, self.warpgroups_per_sm)
    }
    fn flags(&self) -> &[String] {
        &self.flags
    }
    fn compared(&self) -> bool {
        self.compared.is_some()
    }
}

impl WgmmaRow {
    /// Checked: a row conclusions may use (our kernel's figures; the compared one's check is
    /// reported with the rest of the run's).
    pub fn usable(&self) -> bool {
        self.check.passed
    }
}

/// The second table of one run: line by line (table order), warpgroups per SM ascending, and
/// what the sweep left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WgmmaTable {
    pub rows: Vec<WgmmaRow>,
    #[serde(flatten)]
    pub gaps: SweepGaps,
}

/// What a sweep could not run: the points the driver could not hold, each with the reason, and
/// why nothing ran at all ("needs sm_90a ..."), if so.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepGaps {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

impl WgmmaTable {
    /// A table of a device that cannot run it.
    pub fn not_run(why: String) -> Self {
        Self {
            rows: Vec::new(),
            gaps: SweepGaps {
                skipped: Vec::new(),
                not_run: Some(why),
            },
        }
    }

    /// Its failed checks, in words.
    pub fn failures(&self) -> Vec<String> {
        let ours = (self.rows.iter()).filter(|r| !r.check.passed).map(|r| {
            format!(
                "{} at {} warpgroups/SM: {}",
                r.entry, r.warpgroups_per_sm, r.check.what
            )
        });
        let theirs = self.rows.iter().filter_map(|r| {
            let c = r.compared.as_ref().filter(|c| !c.check.passed)?;
            Some(format!(
                "{} at {} warpgroups/SM (compared module): {}",
                r.entry, r.warpgroups_per_sm, c.check.what
            ))
        });
        ours.chain(theirs).collect()
    }
}

/// Every element of `got` (blocks of 64 x N floats, row-major) against the model of `v` after
/// `iters` rounds, bit for bit; a failure names the first wrong element and counts the wrong.
pub fn check_tiles(v: &WgmmaVariant, iters: u32, got: &[f32], blocks: u32) -> Check {
    let what = format!(
        "every element of {blocks} blocks' 64 x {} f32 tiles after {iters} rounds of {} \
         m64n{}k16 BF16 wgmma (inputs in -1..=1, every sum exact) bit-exact against the CPU \
         model of the operand and accumulator layouts",
        v.n, v.groups, v.n
    );
    let model = match WgmmaTile::new(v, iters) {
        Ok(m) => m,
        Err(why) => {
            let why = format!("{what}: the model cannot vouch for these rounds ({why:?})");
            return exact_check(got.len(), got.len(), why);
        }
    };
    let per_block = v.outputs_per_block();
    let want_len = blocks as usize * per_block;
    let wrong: Vec<usize> = (0..want_len)
        .filter(|&i| {
            got.get(i).map(|x| x.to_bits()) != Some(model.element(i % per_block).to_bits())
        })
        .collect();
    let first = wrong.first().map_or_else(String::new, |&i| {
        let e = i % per_block;
        let got = got
            .get(i)
            .map_or_else(|| "nothing".to_owned(), |x| x.to_string());
        format!(
            "; the first, block {} element ({}, {}), is {got} where the model says {}",
            i / per_block,
            e / v.n as usize,
            e % v.n as usize,
            model.element(e)
        )
    });
    let what = format!(
        "{what} ({} differ{first}); error = elements that differ",
        wrong.len()
    );
    exact_check(wrong.len(), want_len, what)
}

/// The second table's columns (the compared module's shown only where a row has its figures).
pub fn columns() -> Vec<Column<WgmmaRow>> {
    let mut c: Vec<Column<WgmmaRow>> = vec![
        Column::new("Entry", Kind::Text, |r| Value::Text(r.entry.clone())),
        Column::new("N", Kind::Count, |r| count(r.n)),
        Column::new("Groups in flight", Kind::Count, |r| count(r.groups)),
        Column::new("Warpgroups/SM", Kind::Count, |r| count(r.warpgroups_per_sm)),
        Column::new("Theo. occ", Kind::Percent, |r| Value::Float(r.occupancy)),
        Column::new("Regs/thread", Kind::Count, |r| count(r.regs)),
        Column::new(TFLOPS.unit, TFLOPS.kind(), |r| Value::Float(r.tflops)),
        Column::new("% of BF16 spec", Kind::Percent, |r| {
            r.share
                .fraction_of_spec
                .map_or(Value::NotAvailable, Value::Float)
        }),
        Column::new("Noise", Kind::Noise, |r| cells::noise(&r.timing)),
        Column::new(cells::SM_CLOCK_HEADER, cells::SM_CLOCK, |r| {
            cells::sm_clock(&r.timing)
        }),
        Column::new("Verified", Kind::Check, |r| cells::check(&r.check)),
    ];
    c.extend(TFLOPS.compared_columns());
    c
}

/// The best checked row at one warpgroup per SM.
pub fn best_at_one(rows: &[WgmmaRow]) -> Option<&WgmmaRow> {
    rows.iter()
        .filter(|r| r.usable() && r.warpgroups_per_sm == 1)
        .max_by(|a, b| a.tflops.total_cmp(&b.tflops))
}

/// Share of the dense BF16 spec that the headline and its verdict
/// (`one-warpgroup-drives-the-tensor-cores`) ask of one warpgroup per SM.
pub const HEADLINE_SHARE: f64 = 0.9;

/// The checked row at the fewest warpgroups per SM whose median reaches `share` of the spec at
/// its clock (the fastest such row at that residency): what it takes where one warpgroup does not.
pub fn fewest_reaching(rows: &[WgmmaRow], share: f64) -> Option<&WgmmaRow> {
    rows.iter()
        .filter(|r| r.usable() && r.share.fraction_of_spec.is_some_and(|f| f >= share))
        .max_by(|a, b| {
            // Fewer warpgroups first, then the faster row.
            (b.warpgroups_per_sm.cmp(&a.warpgroups_per_sm)).then(a.tflops.total_cmp(&b.tflops))
        })
}

/// The table's notes: why it did not run, or how it was measured, its headline and what was
/// not held.
pub fn notes(t: &WgmmaTable) -> Vec<String> {
    if let Some(why) = &t.gaps.not_run {
        return vec![format!("wgmma: {why}")];
    }
    let mut notes = vec![format!(
        "One warpgroup (128 threads) a block writes a 64 x 16 A and a 16 x N B (bf16 in -1..=1) \
         to shared memory, then runs rounds of G commit groups of one m64nNk16 wgmma each on the \
         same f32 accumulators and waits for them ({MMAS_PER_WARPGROUP} MMAs a warpgroup a \
         launch); one wave of blocks, warpgroups/SM held by dynamic shared memory; every \
         element of every tile of the checked launch bit-exact against the CPU model; % of the \
         dense BF16 spec at the SM clock read around the samples"
    )];
    let best = t
        .rows
        .iter()
        .filter(|r| r.usable())
        .max_by(|a, b| a.tflops.total_cmp(&b.tflops));
    if let (Some(one), Some(top)) = (best_at_one(&t.rows), best) {
        let share = |r: &WgmmaRow| r.share.fraction_of_spec.map_or("n/a".to_owned(), percent);
        notes.push(format!(
            "Headline: one warpgroup per SM ({} occupancy) reaches {:.1} TFLOP/s ({} of the \
             dense BF16 spec) with {} (N {}, {} groups in flight); the best of the table is \
             {:.1} TFLOP/s ({}) with {} at {} warpgroups/SM",
            percent_with(one.occupancy, 2),
            one.tflops,
            share(one),
            one.entry,
            one.n,
            one.groups,
            top.tflops,
            share(top),
            top.entry,
            top.warpgroups_per_sm
        ));
        let wanted = percent_with(HEADLINE_SHARE, 0);
        notes.push(match fewest_reaching(&t.rows, HEADLINE_SHARE) {
            Some(r) => format!(
                "What {wanted} of the spec takes: {} warpgroup(s) per SM ({} occupancy), {} with \
                 {} (N {}, {} groups in flight)",
                r.warpgroups_per_sm,
                percent_with(r.occupancy, 2),
                share(r),
                r.entry,
                r.n,
                r.groups
            ),
            None => format!("What {wanted} of the spec takes: no row of the table reaches it"),
        });
    }
    if !t.gaps.skipped.is_empty() {
        notes.push(format!("Not held: {}", t.gaps.skipped.join("; ")));
    }
    notes
}

/// The second table, titled.
pub fn table(t: &WgmmaTable, sampling: &str) -> TableData {
    let title = format!(
        "wgmma (sm_90a) throughput vs warpgroups per SM, shape N and groups in flight ({sampling})"
    );
    let mut data = columns_table(&title, &columns(), &t.rows);
    data.notes.extend(notes(t));
    data
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use kernels_gpu::variants::WGMMA_BF16;

    /// A checked synthetic row of the first line of shape `n` at `per_sm` warpgroups.
    pub(crate) fn row(n: u32, groups: u32, per_sm: u32, fraction: f64) -> WgmmaRow {
        let mma = crate::experiments::mma::row::tests::row(4, 8, 1000.0 * fraction);
        WgmmaRow {
            entry: format!("wgmma_bf16_n{n}_g{groups}"),
            n,
            groups,
            warpgroups_per_sm: per_sm,
            occupancy: f64::from(per_sm * 128) / 2048.0,
            regs: 90,
            dyn_smem_bytes: 100_000,
            iters: MMAS_PER_WARPGROUP / groups,
            tflops: 1000.0 * fraction,
            share: ClockedShare {
                sm_clock_mhz: Some(1980.0),
                spec_peak_tflops: Some(1000.0),
                fraction_of_spec: Some(fraction),
            },
            timing: mma.timing,
            check: mma.measured.check,
            flags: vec![],
            compared: None,
        }
    }

    /// A table of `rows`, nothing skipped.
    pub(crate) fn table_of(rows: Vec<WgmmaRow>) -> WgmmaTable {
        WgmmaTable {
            rows,
            ..WgmmaTable::default()
        }
    }

    fn model_tile(v: &WgmmaVariant, iters: u32, blocks: u32) -> Vec<f32> {
        let m = WgmmaTile::new(v, iters).unwrap();
        let per = v.outputs_per_block();
        (0..blocks as usize * per)
            .map(|i| m.element(i % per))
            .collect()
    }

    #[test]
    fn the_models_tiles_pass_and_one_wrong_element_is_named() {
        let v = &WGMMA_BF16[4];
        let mut got = model_tile(v, 37, 3);
        let c = check_tiles(v, 37, &got, 3);
        assert!(c.passed, "{}", c.what);
        let i = 2 * v.outputs_per_block() + 5 * v.n as usize + 7;
        got[i] += 1.0;
        let c = check_tiles(v, 37, &got, 3);
        assert!(!c.passed);
        assert_eq!(c.error, 1.0);
        has(&c.what, "block 2 element (5, 7)");
        // One round fewer is wrong almost everywhere; a short buffer misses its tail.
        let fewer = model_tile(v, 36, 3);
        assert!(check_tiles(v, 37, &fewer, 3).error > 100.0);
        let right = model_tile(v, 37, 3);
        let c = check_tiles(v, 37, &right[..10], 3);
        assert!(
            !c.passed && c.what.contains("block 0 element (0, 10), is nothing"),
            "{}",
            c.what
        );
        assert_eq!(c.error, (right.len() - 10) as f64);
        assert!(
            !check_tiles(v, 1, &[], 0).passed,
            "no launch checks nothing"
        );
    }

    #[test]
    fn the_table_renders_rows_headline_and_the_reason_it_did_not_run() {
        let t = WgmmaTable {
            rows: vec![row(256, 2, 1, 0.93), row(128, 4, 2, 0.95)],
            gaps: SweepGaps {
                skipped: vec!["wgmma_bf16_n64_g1 at 8 warpgroups/SM: synthetic".into()],
                not_run: None,
            },
        };
        let data = table(&t, "fixed plan");
        assert_eq!(data.rows.len(), 2);
        let notes = data.notes.join("\n");
        has(
            &notes,
            "one warpgroup per SM (6.25% occupancy) reaches 930.0 TFLOP/s",
        );
        has(&notes, "Not held: wgmma_bf16_n64_g1");
        has(
            &notes,
            "What 90% of the spec takes: 1 warpgroup(s) per SM (6.25% occupancy), 93.0%",
        );
        let none = table(&WgmmaTable::not_run("needs sm_90a (...)".into()), "x");
        assert!(none.rows.is_empty());
        assert_eq!(none.notes, ["wgmma: needs sm_90a (...)"]);
        let mut bad = row(64, 1, 1, 0.5);
        bad.check.passed = false;
        let t = table_of(vec![bad]);
        assert_eq!(t.failures().len(), 1);
        assert!(best_at_one(&t.rows).is_none());
    }

    #[test]
    fn a_compared_row_brings_the_compared_columns_and_its_failed_check() {
        let plain = table(&table_of(vec![row(64, 1, 1, 0.5)]), "x");
        let mut r = row(64, 1, 1, 0.5);
        let theirs = row(64, 1, 1, 0.25);
        r.compared = Some(Comparison {
            regs: 64,
            throughput: theirs.tflops,
            ratio: r.tflops / theirs.tflops,
            spill_stores: None,
            spill_loads: None,
            timing: theirs.timing,
            check: theirs.check,
        });
        let t = table_of(vec![r.clone()]);
        let data = table(&t, "x");
        assert_eq!(
            data.columns.len(),
            plain.columns.len() + 4,
            "throughput, regs, ratio, check"
        );
        assert!(t.failures().is_empty());
        r.compared.as_mut().unwrap().check.passed = false;
        let t = table_of(vec![r.clone()]);
        let failures = t.failures();
        assert_eq!(failures.len(), 1);
        assert!(failures[0].contains("(compared module)"), "{failures:?}");
        assert!(best_at_one(&t.rows).is_some(), "our figures stay usable");
        // A row recorded before the field reads back without it, and writes none.
        let json = serde_json::to_string(&row(64, 1, 1, 0.5)).unwrap();
        assert!(!json.contains("compared"), "{json}");
        let back: WgmmaRow = serde_json::from_str(&json).unwrap();
        assert_eq!(back.compared, None);
    }

    #[test]
    fn what_the_headline_share_takes_is_the_fewest_warpgroups_reaching_it() {
        let rows = vec![
            row(256, 16, 1, 0.876),
            row(64, 1, 2, 0.85),
            row(128, 8, 2, 0.91),
            row(128, 4, 2, 0.905),
            row(128, 4, 4, 0.95),
        ];
        let r = fewest_reaching(&rows, 0.9).expect("two warpgroups reach it");
        assert_eq!((r.warpgroups_per_sm, r.n, r.groups), (2, 128, 8));
        let mut failed = rows.clone();
        failed[2].check.passed = false;
        failed[3].check.passed = false;
        assert_eq!(
            fewest_reaching(&failed, 0.9).map(|r| r.warpgroups_per_sm),
            Some(4)
        );
        assert!(fewest_reaching(&rows, 0.96).is_none());
        let t = table_of(rows[..2].to_vec());
        assert!(notes(&t)
            .join("\n")
            .contains("What 90% of the spec takes: no row of the table reaches it"));
    }
}
