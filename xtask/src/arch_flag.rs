//! `--arch`: refused before anything is compiled unless it names a GPU architecture that exists
//! and, when ptxas is at hand, one that this ptxas takes (a misspelt `sm_91` used to fail in
//! ptxas after the whole kernel build).

use std::path::Path;
use std::process::Command;

/// NVIDIA's GPU architectures (`sm_` and the compute capability's digits), Maxwell on.
pub const KNOWN: &[u32] = &[
    50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121,
];

/// `sm_XY`, `sm_XYa` (architecture-specific, sm_90 on) or `sm_XYf` (family, sm_100 on) of a known
/// architecture.
pub fn parse_arch(s: &str) -> Result<String, String> {
    let known = || {
        KNOWN
            .iter()
            .map(|n| format!("sm_{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let refuse = || {
        Err(format!(
            "`{s}` is not a GPU architecture; known: {} (sm_90 on also with an `a` suffix, \
             sm_100 on with `a` or `f`)",
            known()
        ))
    };
    let Some(rest) = s.strip_prefix("sm_") else {
        return refuse();
    };
    let (digits, suffix) = match rest.strip_suffix(['a', 'f']) {
        Some(d) => (d, rest.chars().last()),
        None => (rest, None),
    };
    let Ok(n) = digits.parse::<u32>() else {
        return refuse();
    };
    let suffix_ok = match suffix {
        None => true,
        Some('a') => n >= 90,
        Some(_) => n >= 100,
    };
    if KNOWN.contains(&n) && suffix_ok && digits == n.to_string() {
        Ok(s.to_owned())
    } else {
        refuse()
    }
}

/// The `sm_` targets a ptxas takes, from its `--help` (the list under `--gpu-name`); `None` when
/// it cannot be read.
pub fn ptxas_targets(ptxas: &Path) -> Option<Vec<String>> {
    let out = Command::new(ptxas).arg("--help").output().ok()?;
    let help = String::from_utf8_lossy(&out.stdout);
    targets_in_help(&help)
}

/// The `sm_` values of the "Allowed values" list of `--gpu-name` in ptxas's help text.
pub fn targets_in_help(help: &str) -> Option<Vec<String>> {
    let section = &help[help.find("--gpu-name")?..];
    let list = &section[section.find("Allowed values for this option:")?..];
    let list = &list[..list.find("Default value").unwrap_or(list.len())];
    let targets: Vec<String> = list
        .split(['\'', ',', ' ', '\n'])
        .filter(|w| w.starts_with("sm_"))
        .map(|w| w.trim_end_matches('.').to_owned())
        .collect();
    (!targets.is_empty()).then_some(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_architectures_pass() {
        for ok in ["sm_80", "sm_90", "sm_90a", "sm_100f", "sm_120a", "sm_50"] {
            assert_eq!(parse_arch(ok), Ok(ok.to_owned()), "{ok}");
        }
        for bad in [
            "sm_91",
            "sm_80a",
            "sm_90f",
            "sm_9",
            "sm_090",
            "80",
            "compute_80",
            "sm_",
            "",
        ] {
            let e = parse_arch(bad).unwrap_err();
            assert!(
                e.contains("is not a GPU architecture") && e.contains("sm_90"),
                "{e}"
            );
        }
    }

    #[test]
    fn ptxas_help_lists_its_targets() {
        let help = "--gpu-name <gpu name>  (-arch)\n        Specify name.\n        Allowed \
                    values for this option:  'compute_100','lto_90a','sm_100',\n        \
                    'sm_75','sm_90','sm_90a'.\n        Default value:  'sm_75'.\n\n--help\n";
        assert_eq!(
            targets_in_help(help),
            Some(vec![
                "sm_100".into(),
                "sm_75".into(),
                "sm_90".into(),
                "sm_90a".into()
            ])
        );
        assert_eq!(targets_in_help("no such section"), None);
    }
}
