//! Byte sizes as users type them: `16K`, `48KB`, `1M`, `1.5K`, `4096`.

use thiserror::Error;

/// A size that could not be read (the value as a message shows it).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot read `{0}` as a size: use bytes (4096) or a K/M suffix (16K, 48KiB, 1M)")]
pub struct BadSize(pub String);

/// Parses a byte count; K and M are 1024 and 1024², with or without a trailing B / iB.
pub fn parse_size(s: &str) -> Result<u32, BadSize> {
    let bad = || BadSize(crate::flag_values::shown(s));
    let t = s.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (num, scale) = if let Some(n) = t.strip_suffix('K') {
        (n, 1024.0)
    } else if let Some(n) = t.strip_suffix('M') {
        (n, 1024.0 * 1024.0)
    } else {
        (t, 1.0)
    };
    let num = num.trim();
    if num.is_empty() {
        return Err(bad());
    }
    if scale == 1.0 {
        return num.parse().map_err(|_| bad());
    }
    let v: f64 = num.parse().map_err(|_| bad())?;
    let bytes = v * scale;
    if !(0.0..=f64::from(u32::MAX)).contains(&bytes) || bytes.fract() != 0.0 {
        return Err(bad());
    }
    Ok(bytes as u32)
}
