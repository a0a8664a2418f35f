//! The persistent copies (the variant table's `persistent_copy` lines): the register-held copy run
//! as one wave of SMs x blocks/SM whose threads stream over the whole buffer, so that the bytes in
//! flight per SM are held from the first round to the last, where a memcpy grid point's blocks
//! load, store and exit and hold theirs only while they are resident. These rows are what the
//! loaded-latency law is judged on ([`super::law_claim::sustained_law_predicts`]); they are kept
//! apart from the sweep's rows, so that no other figure or verdict of the experiment moves.

use kernels_gpu::variants::PersistentCopyLine;
use serde::{Deserialize, Serialize};

use super::row::{CopyReference, InflightRow};
use super::samples::CopySamples;
use crate::table::percent;

/// One persistent copy, measured as the sweep's rows are, with its rounds over the copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SustainedRow {
    /// The row as the sweep measures one (its `bytes_in_flight_per_sm` is the nominal figure:
    /// threads x blocks/SM x bytes per thread).
    pub copy: InflightRow,
    /// Rounds the grid ran over the copy (the last may be partial).
    pub rounds: u64,
    /// The rounds' mean fill ([`PersistentCopyLine::fill`]): the time-averaged bytes in flight
    /// are the nominal ones times this.
    pub fill: f64,
    /// One sampled launch of the line's `_sampled` entry beside the timed ones (absent from runs
    /// recorded before the samples, and where the module has no sampled build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<CopySamples>,
}

impl SustainedRow {
    /// `copy`'s row with the rounds of its line over `floats` on `sms` SMs; None when the row is
    /// not a persistent line of the table.
    pub fn new(copy: InflightRow, floats: u64, sms: u32) -> Option<Self> {
        let line: &PersistentCopyLine = copy.point.shape.persistent_line()?;
        let blocks = copy.blocks_per_sm;
        Some(Self {
            rounds: line.rounds(floats, blocks, sms),
            fill: line.fill(floats, blocks, sms),
            copy,
            samples: None,
        })
    }

    /// Bytes in flight per SM, time-averaged over the rounds: the nominal figure times the
    /// rounds' fill.
    pub fn sustained_bytes_per_sm(&self) -> f64 {
        self.copy.bytes_in_flight_per_sm as f64 * self.fill
    }

    /// Usable for the law: checked, and our build does not spill ([`InflightRow::usable`]).
    pub fn usable(&self) -> bool {
        self.copy.usable()
    }

    /// The sampled launch's figures where it ran and its copy checked.
    pub fn checked_samples(&self) -> Option<&CopySamples> {
        self.samples.as_ref().filter(|s| s.check.passed)
    }
}

/// The persistent copies of a run, in table order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Sustained {
    pub rows: Vec<SustainedRow>,
}

impl Sustained {
    /// The failed checks, one line each.
    pub fn failures(&self) -> impl Iterator<Item = String> + '_ {
        self.rows
            .iter()
            .filter(|r| !r.copy.measured.checked())
            .map(|r| format!("{}: {}", r.copy.entry, r.copy.measured.check.what))
    }
}

/// The report's lines on the persistent copies: what they are, then one line each.
pub fn notes(s: &Sustained, copy: &CopyReference) -> Vec<String> {
    let mut notes = vec![format!(
        "Persistent copies (stream_copy_t{{T}}_l{{L}}_w{{W}}; the law's evidence, kept out of the \
         table and the other verdicts): one wave of SMs x blocks/SM, each thread streaming over \
         the whole {} MiB in rounds of L loads then L stores, so the bytes in flight per SM \
         are held through the copy; sustained = threads x blocks/SM x 4 x L x W x the rounds' \
         mean fill",
        copy.bytes >> 20
    )];
    for r in &s.rows {
        let c = &r.copy;
        let check = if c.measured.checked() {
            "copy verified"
        } else {
            "COPY CHECK FAILED"
        };
        let spills = if c.spilled() {
            "; spills: not all loads in flight, left out of the law"
        } else {
            ""
        };
        notes.push(format!(
            "Persistent {} at {} blocks/SM ({} warps/SM, {} regs): {:.0} B sustained per SM \
             ({} rounds, fill {:.3}), {:.1} GB/s = {} of the copy; {check}{spills}",
            c.entry,
            c.blocks_per_sm,
            c.warps_per_sm,
            c.regs,
            r.sustained_bytes_per_sm(),
            r.rounds,
            r.fill,
            c.gbps,
            percent(c.fraction_of_copy),
        ));
        if let Some(s) = &r.samples {
            let last = notes.last_mut().expect("just pushed");
            last.push_str(&sampled_note(s, c.bytes_in_flight_per_sm, c.gbps));
        }
    }
    notes
}

/// The sampled launch's part of a persistent copy's note.
fn sampled_note(s: &CopySamples, nominal: u64, timed_gbps: f64) -> String {
    let check = if s.check.passed {
        "copy verified"
    } else {
        "COPY CHECK FAILED"
    };
    format!(
        "; sampled launch (warp 0 of {} blocks, {} rounds): loads outstanding {} of each round, \
         {:.0} cycles from issue to return = {:.0} ns at {:.3} GHz, so {:.0} B in flight per SM \
         time-averaged (nominal {nominal} x the outstanding share); {:.1} GB/s sampled against \
         {timed_gbps:.1} timed, {check}",
        s.warps,
        s.rounds,
        percent(s.outstanding),
        s.latency_cycles,
        s.latency_ns(),
        s.clock_ghz,
        s.time_averaged_bytes(nominal),
        s.gbps,
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::inflight::grid::{CopyShape, Point};
    use crate::experiments::inflight::row::tests::{copy, row};
    use kernels_gpu::variants::PERSISTENT_COPY;

    /// The persistent line (threads, loads, width) as a row at 1 block/SM reaching `fraction` of
    /// the 4000 GB/s copy.
    pub(crate) fn persistent_row(
        (threads, loads, width): (u32, u32, u32),
        fraction: f64,
    ) -> InflightRow {
        let line = PERSISTENT_COPY
            .iter()
            .find(|l| (l.threads, l.loads, l.width) == (threads, loads, width))
            .expect("a line of the table");
        let mut r = row(threads, 1, line.bytes_per_thread(), fraction);
        r.point = Point {
            shape: CopyShape::from(line),
            blocks_per_sm: 1,
        };
        r.entry = line.entry.to_owned();
        r
    }

    /// [`persistent_row`] over a copy of `floats` on 132 SMs.
    pub(crate) fn sustained(shape: (u32, u32, u32), fraction: f64, floats: u64) -> SustainedRow {
        SustainedRow::new(persistent_row(shape, fraction), floats, 132).expect("persistent")
    }

    #[test]
    fn sustained_bytes_are_the_nominal_ones_times_the_rounds_fill() {
        // 256 x 4 loads x 16 B = 16 KiB per SM; 132 x 256 x 4 vectors a round.
        let round = 132 * 256 * 4 * 4;
        let full = sustained((256, 4, 4), 0.9, 10 * round);
        assert_eq!((full.rounds, full.fill), (10, 1.0));
        assert_eq!(full.sustained_bytes_per_sm(), 16_384.0);
        // Half a round more: 11 rounds, 10.5 of them filled.
        let ragged = sustained((256, 4, 4), 0.9, 10 * round + round / 2);
        assert_eq!(ragged.rounds, 11);
        assert!((ragged.sustained_bytes_per_sm() - 16_384.0 * 10.5 / 11.0).abs() < 1e-9);
        // A row that is not a persistent line has no rounds.
        assert_eq!(SustainedRow::new(row(256, 1, 64, 0.9), round, 132), None);
    }

    #[test]
    fn notes_name_each_copy_and_its_check() {
        // Whole rounds of both lines.
        let floats = 132 * 256 * 32 * 10;
        let mut bad = sustained((256, 8, 4), 0.93, floats);
        bad.copy.measured.check.passed = false;
        let s = Sustained {
            rows: vec![sustained((256, 4, 4), 0.8, floats), bad],
        };
        let notes = notes(&s, &copy());
        assert_eq!(notes.len(), 3);
        assert!(
            notes[0].contains("one wave of SMs x blocks/SM"),
            "{}",
            notes[0]
        );
        let first = "Persistent stream_copy_t256_l4_w4 at 1 blocks/SM (8 warps/SM, 32 regs): \
                     16384 B sustained per SM";
        assert!(notes[1].starts_with(first), "{}", notes[1]);
        assert!(notes[1].ends_with("copy verified"), "{}", notes[1]);
        assert!(notes[2].contains("COPY CHECK FAILED"), "{}", notes[2]);
        assert_eq!(s.failures().count(), 1);
    }

    #[test]
    fn only_runs_with_persistent_copies_carry_their_verdict_and_notes() {
        use crate::experiments::inflight::model::tests::GPU;
        use crate::experiments::inflight::output::Inflight;
        use crate::experiments::inflight::row::tests::synthetic;
        use crate::experiments::inflight::{claims, table};
        let keys = |r: &Inflight| -> Vec<&'static str> {
            claims::verdicts(Some(r)).iter().map(|v| v.key).collect()
        };
        let mut run = synthetic(vec![row(256, 1, 64, 0.96)], GPU);
        let before = keys(&run);
        assert!(!before.contains(&"sustained-littles-law-predicts-need"));
        let persistent = |n: &String| n.starts_with("Persistent");
        assert!(!table::notes(&run).iter().any(persistent));
        run.sustained = Some(Sustained {
            rows: vec![sustained((256, 4, 4), 0.8, 1 << 25)],
        });
        let after = keys(&run);
        assert_eq!(after.len(), before.len() + 1);
        assert_eq!(
            after[2..4],
            [
                "loaded-littles-law-predicts-need",
                "sustained-littles-law-predicts-need"
            ]
        );
        assert_eq!(
            table::notes(&run).iter().filter(|n| persistent(n)).count(),
            2
        );
    }
}
