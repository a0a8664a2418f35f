//! Every figure's samples counted in a results.json's text before the file is loaded: loading
//! goes through untagged enums, which buffer a value whole before choosing a form, so a list of
//! ten million samples would be held (and cost hundreds of megabytes) before any typed check
//! could refuse it. The scan keeps nothing but the count of the list it is in, and stops at the
//! first sample over the ceiling, so such a file is refused after reading at most that many.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use crate::results::{MOST_SAMPLES, MOST_SAMPLES_READ};

/// The field every figure keeps its samples in.
const SAMPLES: &str = "samples_ms";
/// The field under which a figure pools its samples over lines (cuBLAS timed beside each GEMM
/// line); its own ceiling per line is checked once the file is loaded
/// ([`crate::report::validate`]).
const POOLED: &str = "cublas";

/// Scans the JSON text in `bytes`: every `samples_ms` list holds at most [`MOST_SAMPLES`], or
/// [`MOST_SAMPLES_READ`] under a `cublas` field. The error names the list (e.g.
/// `occupancy.rows[0].timing.samples_ms: more than 100000 samples ...`). Malformed JSON is left
/// to the typed load, which says more about it.
pub fn check_sample_counts(bytes: &[u8]) -> Result<(), String> {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut json, &mut track);
    match (Scan::Other { pooled: false }).deserialize(tracked) {
        Err(e) if e.is_data() => Err(format!("{}: {e}", track.path())),
        _ => Ok(()),
    }
}

/// What the value being scanned is.
#[derive(Clone, Copy)]
enum Scan {
    /// A figure's samples, at most this many.
    Samples(usize),
    /// Anything else; `pooled` under a `cublas` field.
    Other { pooled: bool },
}

impl Scan {
    fn pooled(self) -> bool {
        matches!(self, Scan::Other { pooled: true })
    }
}

impl<'de> DeserializeSeed<'de> for Scan {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A map key: whether it names a figure's samples, a pooled figure, or neither.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<&'static str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for Key {
    type Value = Option<&'static str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok([SAMPLES, POOLED].into_iter().find(|k| *k == v))
    }
}

impl<'de> Visitor<'de> for Scan {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a results file")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(Key)? {
            let pooled = self.pooled() || key == Some(POOLED);
            let value = match key {
                Some(SAMPLES) if pooled => Scan::Samples(MOST_SAMPLES_READ),
                Some(SAMPLES) => Scan::Samples(MOST_SAMPLES as usize),
                _ => Scan::Other { pooled },
            };
            map.next_value_seed(value)?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut count = 0usize;
        let item = Scan::Other {
            pooled: self.pooled(),
        };
        while seq.next_element_seed(item)?.is_some() {
            count += 1;
            if let Scan::Samples(most) = self {
                if count > most {
                    return Err(A::Error::custom(format!(
                        "more than {most} samples in one figure; the lab takes at most \
                         {MOST_SAMPLES} per figure (--max-samples){}",
                        if most > MOST_SAMPLES as usize {
                            " and pools at most one figure per GEMM line"
                        } else {
                            ""
                        }
                    )));
                }
            }
        }
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan(v: &serde_json::Value) -> Result<(), String> {
        check_sample_counts(&serde_json::to_vec(v).unwrap())
    }

    #[test]
    fn a_figure_holds_at_most_what_the_lab_takes() {
        let most = MOST_SAMPLES as usize;
        let ok = json!({"occupancy": {"rows": [{"timing": {"samples_ms": vec![1.0; most]}}]}});
        assert_eq!(scan(&ok), Ok(()));
        let over =
            json!({"occupancy": {"rows": [{"timing": {"samples_ms": vec![1.0; most + 1]}}]}});
        let e = scan(&over).unwrap_err();
        assert!(
            e.starts_with("occupancy.rows[0].timing.samples_ms: more than 100000 samples"),
            "{e}"
        );
        // cuBLAS's figure pools one figure's samples per GEMM line.
        let pooled = json!({"occupancy": {"cublas": {"Measured": {"timing": {"samples_ms": vec![1.0; 2 * most]}}}}});
        assert_eq!(scan(&pooled), Ok(()));
        let too_many = json!({"gemm_bf16": {"cublas": {"timing": {"samples_ms": vec![1.0; MOST_SAMPLES_READ + 1]}}}});
        assert!(scan(&too_many)
            .unwrap_err()
            .starts_with("gemm_bf16.cublas.timing.samples_ms: more than"));
        // Text that is not JSON is the typed load's to describe.
        assert_eq!(check_sample_counts(b"{\"a\": [1, 2"), Ok(()));
    }
}
