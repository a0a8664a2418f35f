//! The fuzz's line generator: each line is made of parts whose verdict is known (a flag with a
//! value it must take, one it must refuse, a module file that is or is not a module, ...), so
//! the generator knows the exit code the line must give ([`super::rules`]) from what it put in.
//! Every subcommand is generated; where a driver is present, every experiment line carries
//! `--check-only` and nothing that would run on the GPU is generated.

use std::collections::HashSet;
use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

use super::rules::{decide, of, Rule};
use super::Pool;

/// Where a line's stdout goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// A pipe the test reads.
    Pipe,
    /// A pipe whose reader has exited before the line starts.
    Closed,
    /// `/dev/full`.
    Full,
}

/// One generated command line and how it must end.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub args: Vec<String>,
    pub rule: Rule,
    pub sink: Sink,
    /// A file the line must have written whatever happened to its stdout (a report's
    /// report.md in its `--out`).
    pub must_write: Option<PathBuf>,
}

impl Case {
    pub fn code(&self) -> u8 {
        of(self.rule).code
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Value,
    List,
    Switch,
}

/// A flag: values its checks must take (`good`) and values they must refuse (`bad`).
#[derive(Clone, Copy)]
struct Flag {
    name: &'static str,
    kind: Kind,
    good: &'static [&'static str],
    bad: &'static [&'static str],
}

const fn value(
    name: &'static str,
    good: &'static [&'static str],
    bad: &'static [&'static str],
) -> Flag {
    Flag {
        name,
        kind: Kind::Value,
        good,
        bad,
    }
}

const fn list(
    name: &'static str,
    good: &'static [&'static str],
    bad: &'static [&'static str],
) -> Flag {
    Flag {
        name,
        kind: Kind::List,
        good,
        bad,
    }
}

const fn switch(name: &'static str) -> Flag {
    Flag {
        name,
        kind: Kind::Switch,
        good: &[],
        bad: &[],
    }
}

/// The flags every experiment takes (`--out`, `--force`, `--check-only`, `--iters`/`--samples`
/// are generated apart: they depend on each other).
const COMMON: &[Flag] = &[
    value("--device", &["0", "1", "1023"], &["1024", "-1", "x", ""]),
    value(
        "--noise",
        &["0.5", "2", "100"],
        &["0", "101", "-1", "NaN", "x"],
    ),
    value("--min-samples", &["2", "5"], &["1", "10001", "x"]),
    value(
        "--max-samples",
        &["5", "100", "100000"],
        &["1", "100001", "-5"],
    ),
    value("--max-time-ms", &["1", "3600000"], &["0", "3600001", "1.5"]),
    value("--clock-every", &["0", "1000000"], &["1000001", "-1", "x"]),
    value(
        "--format",
        &["table", "markdown", "csv", "json"],
        &["bogus", "", "x\ny"],
    ),
    value(
        "--seed",
        &["0", "18446744073709551615"],
        &["-1", "18446744073709551616", "x"],
    ),
];

const GEMM_SIZE: Flag = value(
    "--size",
    &["64", "4096", "128x256x64"],
    &["0", "32769", "x", "64x64", "64x0x64", "1e3", "-64"],
);
const TUNED_SIZE: Flag = value(
    "--size",
    &["64", "65", "1x1x1", "128x256x72"],
    &["0", "32769", "x", "64x64", "64x0x64", "-1"],
);
const COPY_MIB: Flag = value(
    "--copy-mib",
    &["1", "1024", "1048576"],
    &["0", "1048577", "1M"],
);
const WARPS: &[&str] = &["1", "64", "3,5", "4,8,16"];
const BAD_WARPS: &[&str] = &["0", "65", "-1,2", "x"];

/// The experiments' own flags.
fn own_flags(sub: &str) -> Vec<Flag> {
    match sub {
        "occupancy" => vec![
            list(
                "--variants",
                &["S", "R4", "C,R1", "S,A1,A,B,C,D,D+,R1,R2,R3,R4"],
                &["X9", "", ",", "S,,A", "T1"],
            ),
            GEMM_SIZE,
            switch("--no-cublas"),
        ],
        "bandwidth" => vec![
            list("--variants", &["T1", "T1,T8f4", "T14f4"], &["S", "X9", ""]),
            COPY_MIB,
        ],
        "regs" => vec![
            value("--variant", &["C", "R4", "S"], &["X9", "T1", ""]),
            list(
                "--caps",
                &["32", "32,64,255", "48,96"],
                &["15", "256", "x", "", "-1"],
            ),
            GEMM_SIZE,
        ],
        "inflight" => vec![
            list(
                "--threads",
                &["32", "64,256", "32,64,128,256,512,1024"],
                &["33", "0", "2048", "x", "-1"],
            ),
            list("--loads", &["1", "1,2,4", "3,32"], &["5", "0", "64"]),
            list("--widths", &["1", "1,2,4"], &["3", "8"]),
            list("--warps-per-sm", WARPS, BAD_WARPS),
            switch("--every-block-size"),
            value("--copy-mib", &["1", "128"], &["0", "1048577"]),
            value("--chase-mib", &["1", "16384"], &["0", "16385"]),
            value(
                "--chase-steps",
                &["1000", "1073741824"],
                &["999", "1073741825"],
            ),
            value(
                "--loaded-steps",
                &["0", "8192", "16777216"],
                &["16777217", "-1"],
            ),
            switch("--no-smem"),
            list(
                "--sizes-mib",
                &["0", "16,32", "1048576"],
                &["1048577", "x", "-1"],
            ),
        ],
        "ilp" => vec![
            list("--ilp", &["1", "1,2,16"], &["7", "0", "17"]),
            list("--warps-per-sm", WARPS, BAD_WARPS),
            list(
                "--controls",
                &["none", "fadd_ilp1,fmul_ilp2"],
                &["bogus", "fadd_ilp3", ""],
            ),
            list("--control-warps-per-sm", &["1", "4,64"], BAD_WARPS),
            value("--target-cycles", &["2000000", "1000"], &["0", "999", "x"]),
        ],
        "mma" => vec![
            list("--ilp", &["1", "1,2,4,8"], &["3", "16", "0"]),
            list("--warps-per-sm", WARPS, BAD_WARPS),
            value("--target-cycles", &["1000000"], &["0", "x"]),
            list("--warpgroups-per-sm", &["1", "16", "1,2"], &["0", "17"]),
            switch("--no-wgmma"),
        ],
        "gemm_bf16" => vec![
            list(
                "--variants",
                &["M1", "W1,MT2", "M1,M2,M3"],
                &["S", "X9", ""],
            ),
            TUNED_SIZE,
            switch("--no-cublas"),
        ],
        "held" => vec![
            list(
                "--variants",
                &["C", "C@128", "C,D,R4,C@128"],
                &["S", "X9", ""],
            ),
            GEMM_SIZE,
        ],
        "shapes" => vec![
            list(
                "--shapes",
                &["1024", "7x9000x13,1x4096x4096"],
                &["3x3x3", ""],
            ),
            list("--families", &["fp32", "bf16,fp32"], &["fp64"]),
            switch("--no-cublas"),
        ],
        "all" => vec![
            list("--variants", &["S", "T1,C@128", "M1"], &["X9", ""]),
            GEMM_SIZE,
            switch("--no-cublas"),
            COPY_MIB,
            list("--caps", &["32,64"], &["40", "15"]),
            value("--inflight-copy-mib", &["1"], &["0"]),
            list("--inflight-loads", &["1,2"], &["5"]),
            list("--inflight-warps-per-sm", &["4"], &["0"]),
            list("--inflight-sizes-mib", &["0", "16"], &["1048577"]),
            list("--ilp-warps-per-sm", &["8"], &["65"]),
            list("--mma-warps-per-sm", &["8"], &["0"]),
        ],
        _ => unreachable!("{sub}"),
    }
}

/// The list flags whose duplicates are refused today (the others: [`Rule::DuplicateItemElsewhere`]).
const DUPLICATES_REFUSED: &[&str] = &["--variants", "--caps"];

/// The experiments whose size must tile for their default (seed) lines: `--size 65` without a
/// variant list is refused.
const SEED_SIZED: &[&str] = &["occupancy", "regs", "held", "all"];

/// The module file an experiment's `--module` takes (`None`: no one file passes, as for `all`,
/// whose experiments need both modules; `regs` takes folders).
fn good_module<'p>(sub: &str, pool: &'p Pool) -> Option<&'p str> {
    match sub {
        "occupancy" | "bandwidth" | "inflight" | "ilp" => Some(&pool.main_ptx),
        "mma" | "gemm_bf16" => Some(&pool.tensor_ptx),
        _ => None,
    }
}

/// A line under construction: groups of arguments (a flag and its value), shuffled at the end,
/// and the defects put in.
struct Line<'r> {
    rng: &'r mut StdRng,
    groups: Vec<Vec<String>>,
    /// Goes last (a flag missing its value).
    last: Option<String>,
    defects: Vec<Rule>,
    used: HashSet<&'static str>,
}

impl<'r> Line<'r> {
    fn new(rng: &'r mut StdRng) -> Self {
        Self {
            rng,
            groups: Vec::new(),
            last: None,
            defects: Vec::new(),
            used: HashSet::new(),
        }
    }

    fn push(&mut self, name: &'static str, value: Option<&str>) {
        self.used.insert(name);
        let mut g = vec![name.to_owned()];
        g.extend(value.map(str::to_owned));
        self.groups.push(g);
    }

    fn has(&self, name: &str) -> bool {
        self.used.contains(name)
    }

    /// `flag` with a value it takes.
    fn good(&mut self, flag: &Flag) {
        if self.has(flag.name) {
            return;
        }
        let v = flag.good.choose(self.rng).copied();
        self.push(flag.name, v);
    }

    /// `flag` with a value it refuses, or an item listed twice; false if it has none.
    fn bad(&mut self, flag: &Flag) -> bool {
        if self.has(flag.name) || flag.kind == Kind::Switch {
            return false;
        }
        if flag.kind == Kind::List && self.rng.gen_bool(0.3) {
            let item = flag.good[0].split(',').next().unwrap();
            let twice = format!("{item},{}", flag.good.choose(self.rng).unwrap());
            let twice = if twice.split(',').filter(|i| *i == item).count() < 2 {
                format!("{item},{item}")
            } else {
                twice
            };
            self.push(flag.name, Some(&twice));
            self.defects
                .push(if DUPLICATES_REFUSED.contains(&flag.name) {
                    Rule::DuplicateItem
                } else {
                    Rule::DuplicateItemElsewhere
                });
            return true;
        }
        let v = *flag.bad.choose(self.rng).unwrap();
        self.push(flag.name, Some(v));
        self.defects.push(Rule::BadFlag);
        true
    }

    /// One of `flags` with a value it refuses; false if none has one left.
    fn bad_any(&mut self, flags: &[Flag]) -> bool {
        let mut order: Vec<Flag> = flags.to_vec();
        order.shuffle(self.rng);
        order.iter().any(|f| self.bad(f))
    }

    /// A defect any subcommand's flags can have: an unknown flag, a stray word, a flag twice, a
    /// flag without its value.
    fn clap_defect(&mut self, flags: &[Flag]) {
        match self.rng.gen_range(0..4) {
            0 => {
                let f = *["--nonsense", "-x", "--version", "--Device", "-"]
                    .choose(self.rng)
                    .unwrap();
                self.groups.push(vec![f.to_owned()]);
            }
            1 => {
                let w = match self.rng.gen_range(0..3) {
                    0 => "junk".to_owned(),
                    1 => format!("1{}", "0".repeat(self.rng.gen_range(20..400))),
                    _ => "ünï\u{1b}[31m".to_owned(),
                };
                self.groups.push(vec![w]);
            }
            2 => {
                // A flag given twice (list flags append instead, so not those).
                let once: Vec<&Flag> = flags
                    .iter()
                    .filter(|f| f.kind != Kind::List && !self.has(f.name))
                    .collect();
                let Some(&&f) = once.choose(self.rng) else {
                    self.groups.push(vec!["--nonsense".to_owned()]);
                    return self.defects.push(Rule::BadFlag);
                };
                self.good(&f);
                let v = f.good.choose(self.rng).copied();
                self.groups.push(
                    std::iter::once(f.name.to_owned())
                        .chain(v.map(str::to_owned))
                        .collect(),
                );
            }
            _ => {
                let takes: Vec<&Flag> = flags
                    .iter()
                    .filter(|f| f.kind != Kind::Switch && !self.has(f.name))
                    .collect();
                let Some(&&f) = takes.choose(self.rng) else {
                    self.groups.push(vec!["junk".to_owned()]);
                    return self.defects.push(Rule::BadFlag);
                };
                self.used.insert(f.name);
                self.last = Some(f.name.to_owned());
            }
        }
        self.defects.push(Rule::BadFlag);
    }

    fn finish(mut self, head: &[&str], clean: Rule) -> (Vec<String>, Rule) {
        self.groups.shuffle(self.rng);
        let mut args: Vec<String> = head.iter().map(|s| (*s).to_owned()).collect();
        args.extend(self.groups.into_iter().flatten());
        args.extend(self.last);
        (args, decide(&self.defects, clean))
    }
}

/// Makes lines for one machine: `driver` says whether a CUDA driver is present.
pub struct Generator<'p> {
    pub pool: &'p Pool,
    pub driver: bool,
}

/// Every subcommand that runs experiments: the registry's, and `all`.
pub fn experiments() -> Vec<&'static str> {
    let mut names = kernels_gpu::experiment_names::EXPERIMENT_NAMES.to_vec();
    names.push("all");
    names
}

impl Generator<'_> {
    /// Line `index`: its arguments, its rule, where its stdout goes.
    pub fn case(&self, rng: &mut StdRng, index: usize) -> Case {
        let fresh = self.pool.fresh.join(index.to_string());
        let fresh_out = fresh.to_str().unwrap().to_owned();
        let (args, rule, must_write) = match rng.gen_range(0..20) {
            0..=8 => {
                let sub = *experiments().choose(rng).expect("experiments");
                let (a, r) = self.experiment(rng, sub, &fresh_out);
                (a, r, None)
            }
            9 => {
                let (a, r) = self.info(rng);
                (a, r, None)
            }
            10..=12 => {
                let (a, r) = self.calc(rng, &fresh_out);
                (a, r, None)
            }
            13..=16 => self.report(rng, &fresh_out),
            _ => {
                let (a, r) = self.top(rng);
                (a, r, None)
            }
        };
        let sink = match rng.gen_range(0..10) {
            0 => Sink::Closed,
            1 => Sink::Full,
            _ => Sink::Pipe,
        };
        // What a line prints to stdout (help, the calculator, a report's files, the device) it
        // prints only when it succeeds; errors go to stderr.
        let prints = matches!(
            rule,
            Rule::Help | Rule::Version | Rule::Calc | Rule::Report | Rule::Info
        );
        let rule = match (sink, prints) {
            (Sink::Closed, true) => Rule::ClosedStdout,
            (Sink::Full, true) if matches!(rule, Rule::Help | Rule::Version) => {
                Rule::HelpToFullStdout
            }
            (Sink::Full, true) => Rule::FullStdout,
            _ => rule,
        };
        // Item 1: a closed stdout still leaves --out complete.
        let must_write = must_write.filter(|_| rule == Rule::ClosedStdout);
        Case {
            args,
            rule,
            sink,
            must_write,
        }
    }

    /// One line per refused value of every flag of every subcommand, per bad module and bad
    /// `--out`, per broken or impossible results folder: each the only defect of its line, so
    /// that any one check that stops refusing (letting the line reach the driver, or pass) is
    /// found, whatever the random lines happen to pick. Experiment lines alternate between
    /// `--check-only` (a check that stops refusing gives 0) and a run (it gives 3).
    pub fn catalogue(&self) -> Vec<Case> {
        let pool = self.pool;
        let mut lines: Vec<(Vec<String>, Rule)> = Vec::new();
        let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let mut k = 0usize;
        for sub in &experiments() {
            let mut flags: Vec<Flag> = COMMON.to_vec();
            flags.extend(own_flags(sub));
            let head = |k: &mut usize| {
                *k += 1;
                if self.driver || k.is_multiple_of(2) {
                    vec![(*sub).to_owned(), "--check-only".to_owned()]
                } else {
                    vec![(*sub).to_owned()]
                }
            };
            for f in &flags {
                for bad in f.bad {
                    let mut a = head(&mut k);
                    a.extend(owned(&[f.name, bad]));
                    lines.push((a, Rule::BadFlag));
                }
                if f.kind == Kind::List {
                    let item = f.good[0].split(',').next().unwrap();
                    let mut a = head(&mut k);
                    a.extend([f.name.to_owned(), format!("{item},{item}")]);
                    let rule = if DUPLICATES_REFUSED.contains(&f.name) {
                        Rule::DuplicateItem
                    } else {
                        Rule::DuplicateItemElsewhere
                    };
                    lines.push((a, rule));
                }
            }
            if *sub != "held" {
                let bad = if *sub == "regs" {
                    &pool.bad_folders
                } else {
                    &pool.bad_modules
                };
                for m in bad {
                    for flag in ["--module", "--compare"] {
                        if *sub == "gemm_bf16" && flag == "--compare" && pool.entryless.contains(m)
                        {
                            continue;
                        }
                        let mut a = head(&mut k);
                        a.extend(owned(&[flag, m]));
                        lines.push((a, Rule::BadModule));
                    }
                }
            }
            for out in [
                &pool.a_file,
                "/dev/null",
                "/proc/x",
                &pool.taken,
                &pool.unrelated,
                "/",
                "",
            ] {
                let mut a = head(&mut k);
                a.extend(owned(&["--out", out]));
                lines.push((a, Rule::BadOut));
            }
            let mut a = head(&mut k);
            a.push("--force".to_owned());
            lines.push((a, Rule::BadFlag));
        }
        let calc_flags = [
            value("--arch", &[], &["sm_61", "sm_91", "x", ""]),
            value("--threads", &[], &["0", "1025", "-1", "x"]),
            value("--regs", &[], &["256", "-1", "x"]),
            value("--smem", &[], &["x", "-1"]),
            value("--dyn-smem", &[], &["x", "-1"]),
            value("--carveout", &[], &["101", "-1"]),
            value("--sms", &[], &["0", "1025"]),
            value("--block-size-limit", &[], &["0", "1025", "x"]),
            value("--device", &[], &["1024", "-1"]),
            COMMON[6],
        ];
        for f in &calc_flags {
            for bad in f.bad {
                lines.push((owned(&["calc", f.name, bad]), Rule::BadFlag));
            }
        }
        for bad in ["256", "x", "-1"] {
            lines.push((
                owned(&["calc", "--verify", "--reg-caps", bad]),
                Rule::BadFlag,
            ));
        }
        if !self.driver {
            lines.push((
                owned(&["calc", "--verify", "--reg-caps", "0,0"]),
                Rule::DuplicateItemElsewhere,
            ));
            for m in &pool.bad_ptx {
                lines.push((owned(&["calc", "--verify", "--ptx", m]), Rule::BadModule));
            }
        }
        lines.push((
            owned(&["calc", "--ptx", &pool.main_ptx]),
            Rule::NoEffectFlag,
        ));
        for bad in ["1024", "-1", "x"] {
            lines.push((owned(&["info", "--device", bad]), Rule::BadFlag));
        }
        for bad in COMMON[6].bad {
            lines.push((owned(&["info", "--format", bad]), Rule::BadFlag));
        }
        lines.push((owned(&["info", "--check-only"]), Rule::BadFlag));
        for run in &pool.bad_runs {
            lines.push((owned(&["report", run]), Rule::BadResults));
        }
        for run in &pool.impossible_runs {
            lines.push((owned(&["report", run]), Rule::ImpossibleResults));
        }
        let good = &pool.good_runs[0];
        for out in [&pool.a_file, "/dev/null", "/proc/x", &pool.unrelated, "/"] {
            lines.push((owned(&["report", good, "--out", out]), Rule::BadOut));
        }
        lines.push((
            owned(&["report", &pool.h200, "--out", &pool.taken]),
            Rule::BadOut,
        ));
        lines
            .into_iter()
            .map(|(args, rule)| Case {
                args,
                rule,
                sink: Sink::Pipe,
                must_write: None,
            })
            .collect()
    }

    /// An experiment subcommand (or `all`).
    fn experiment(&self, rng: &mut StdRng, sub: &'static str, fresh: &str) -> (Vec<String>, Rule) {
        let pool = self.pool;
        let own = own_flags(sub);
        let mut flags: Vec<Flag> = COMMON.to_vec();
        flags.extend(own.iter().copied());
        let check_only = self.driver || rng.gen_bool(0.5);
        let mut l = Line::new(rng);
        if check_only {
            l.push("--check-only", None);
        }
        let n = l.rng.gen_range(0..5);
        let picked: Vec<Flag> = flags.choose_multiple(l.rng, n).copied().collect();
        for f in &picked {
            l.good(f);
        }
        // A fixed plan replaces the noise target: not with the noise target's flags.
        let noise_flags = ["--noise", "--min-samples", "--max-samples", "--max-time-ms"];
        if !noise_flags.iter().any(|f| l.has(f)) && l.rng.gen_bool(0.15) {
            let iters = *["1", "1000000"].choose(l.rng).unwrap();
            let samples = *["1", "1000"].choose(l.rng).unwrap();
            l.push("--iters", Some(iters));
            l.push("--samples", Some(samples));
        }
        let module = good_module(sub, pool);
        if sub == "regs" && !l.has("--caps") && !l.has("--variant") && l.rng.gen_bool(0.2) {
            let which = *["--module", "--compare"].choose(l.rng).unwrap();
            l.push(which, Some(&pool.good_caps));
            // The folder has caps 32 and 64 only.
            let caps = *["32", "32,64", "64"].choose(l.rng).unwrap();
            l.push("--caps", Some(caps));
        }
        // Reading a whole built-in module takes a while: a few lines only.
        if let Some(m) = module {
            if l.rng.gen_bool(0.08) {
                l.push("--module", Some(m));
            }
            if l.rng.gen_bool(0.08) {
                l.push("--compare", Some(m));
                if l.rng.gen_bool(0.5) {
                    let label = *["peer", "ünï", "x y"].choose(l.rng).unwrap();
                    l.push("--compare-label", Some(label));
                }
            }
        }
        if l.rng.gen_bool(0.3) {
            l.push("--out", Some(fresh));
            if l.rng.gen_bool(0.3) {
                l.push("--force", None);
            }
        } else if check_only && l.rng.gen_bool(0.1) {
            // A folder holding a run, or other files, is taken with --force; without
            // --check-only it is left alone, so that other lines find it as it was.
            let out = [&pool.taken, &pool.unrelated]
                .choose(l.rng)
                .unwrap()
                .as_str();
            l.push("--out", Some(out));
            l.push("--force", None);
        }
        let defects = match l.rng.gen_range(0..20) {
            0..=10 => 0,
            11..=17 => 1,
            _ => 2,
        };
        for _ in 0..defects {
            match l.rng.gen_range(0..16) {
                0..=5 => {
                    if !l.bad_any(&flags) {
                        l.clap_defect(&flags);
                    }
                }
                6..=8 => l.clap_defect(&flags),
                9..=10 if !l.has("--module") && sub != "held" => {
                    let bad = if sub == "regs" {
                        &pool.bad_folders
                    } else {
                        &pool.bad_modules
                    };
                    let m = bad.choose(l.rng).unwrap();
                    l.push("--module", Some(m));
                    l.defects.push(Rule::BadModule);
                }
                11 if !l.has("--out") => {
                    // With --force already given (a defect of its own without --out), only
                    // folders --force cannot take.
                    let pick = l.rng.gen_range(0..7);
                    let pick = if l.has("--force") { pick % 3 } else { pick };
                    let (out, force) = match pick {
                        0 => (pool.a_file.as_str(), l.rng.gen_bool(0.5)),
                        1 => ("/dev/null", l.rng.gen_bool(0.5)),
                        2 => ("/proc/x", l.rng.gen_bool(0.5)),
                        3 => (pool.taken.as_str(), false),
                        4 => (pool.unrelated.as_str(), false),
                        5 => ("/", false),
                        _ => ("", false),
                    };
                    l.push("--out", Some(out));
                    if force && !l.has("--force") {
                        l.push("--force", None);
                    }
                    l.defects.push(Rule::BadOut);
                }
                12 if !l.has("--out") && !l.has("--force") => {
                    l.push("--force", None);
                    l.defects.push(Rule::BadFlag);
                }
                13 if !l.has("--compare") && !l.has("--compare-label") => {
                    // `all` takes it for --compare or --compare-caps; without either it names
                    // nothing.
                    l.push("--compare-label", Some("peer"));
                    l.defects.push(if sub == "all" {
                        Rule::NoEffectFlag
                    } else {
                        Rule::BadFlag
                    });
                }
                14 if !l.has("--iters") => {
                    let f = *["--iters", "--samples"].choose(l.rng).unwrap();
                    l.push(f, Some("5"));
                    l.defects.push(Rule::BadFlag);
                }
                15 if SEED_SIZED.contains(&sub)
                    && !l.has("--size")
                    && !l.has("--variants")
                    && !l.has("--variant") =>
                {
                    let size = *["65", "1000", "64x64x100"].choose(l.rng).unwrap();
                    l.push("--size", Some(size));
                    l.defects.push(Rule::BadFlag);
                }
                _ => l.clap_defect(&flags),
            }
        }
        let clean = if check_only {
            Rule::CheckOnly
        } else {
            Rule::NoDriver
        };
        l.finish(&[sub], clean)
    }

    fn info(&self, rng: &mut StdRng) -> (Vec<String>, Rule) {
        let devices: &'static [&'static str] = if self.driver {
            &["0"]
        } else {
            &["0", "1", "1023"]
        };
        let flags = [value("--device", devices, &["1024", "-1", "x"]), COMMON[6]];
        let mut l = Line::new(rng);
        for f in &flags {
            if l.rng.gen_bool(0.4) {
                l.good(f);
            }
        }
        if l.rng.gen_bool(0.4) {
            match l.rng.gen_range(0..3) {
                0 => {
                    let f = flags[l.rng.gen_range(0..2)];
                    if !l.bad(&f) {
                        l.clap_defect(&flags);
                    }
                }
                1 => {
                    l.push("--check-only", None);
                    l.defects.push(Rule::BadFlag);
                }
                _ => l.clap_defect(&flags),
            }
        }
        let clean = if self.driver {
            Rule::Info
        } else {
            Rule::NoDriver
        };
        l.finish(&["info"], clean)
    }

    fn calc(&self, rng: &mut StdRng, fresh: &str) -> (Vec<String>, Rule) {
        let pool = self.pool;
        // Every combination of these launches on every architecture of the table. Flags that
        // only matter with another (--block-size-limit, --json beside --format) come with it.
        let flags = [
            value(
                "--arch",
                &[
                    "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
                ],
                &["sm_61", "sm_91", "x", ""],
            ),
            value(
                "--threads",
                &["32", "64", "256", "1024"],
                &["0", "1025", "-1", "x"],
            ),
            value("--regs", &["0", "16", "32", "64"], &["256", "-1", "x"]),
            value("--smem", &["0", "1024", "1K", "16K"], &["x", "-1"]),
            value("--dyn-smem", &["0", "8K", "100"], &["x", "-1"]),
            value("--carveout", &["0", "50", "100"], &["101", "-1"]),
            value("--sms", &["1", "132", "1024"], &["0", "1025"]),
            switch("--cliff"),
            switch("--curves"),
            COMMON[6],
        ];
        let gpu_flags = [
            value("--device", &["0", "3"], &["1024", "-1"]),
            list("--reg-caps", &["0,32", "255", "0"], &["256", "x", "-1"]),
            switch("--all-entries"),
        ];
        let mut l = Line::new(rng);
        // --verify and --record-golden read the driver: not where one is present (they would
        // run on it), and with only their own flags (the calculator's have no effect there).
        let gpu_mode = !self.driver && l.rng.gen_bool(0.25);
        let mut clean = Rule::Calc;
        let own: &[Flag] = if gpu_mode { &gpu_flags } else { &flags };
        if gpu_mode {
            clean = Rule::NoDriver;
            if l.rng.gen_bool(0.7) {
                l.push("--verify", None);
            } else {
                l.push("--record-golden", Some(&format!("{fresh}.csv")));
            }
            if l.rng.gen_bool(0.3) {
                l.push("--ptx", Some(&pool.main_ptx));
            }
            let n = l.rng.gen_range(0..3);
            let picked: Vec<Flag> = gpu_flags.choose_multiple(l.rng, n).copied().collect();
            for f in &picked {
                l.good(f);
            }
        } else {
            let n = l.rng.gen_range(0..5);
            let picked: Vec<Flag> = flags.choose_multiple(l.rng, n).copied().collect();
            for f in &picked {
                l.good(f);
            }
            if l.rng.gen_bool(0.2) {
                l.push("--max-potential-block-size", None);
                if l.rng.gen_bool(0.5) {
                    l.good(&value("--block-size-limit", &["1", "1024"], &[]));
                }
            }
            if !l.has("--format") && l.rng.gen_bool(0.1) {
                l.push("--json", None);
            }
            if !l.has("--arch") && l.rng.gen_bool(0.1) {
                // The device's limits: without a driver, the one-line no-driver message.
                if self.driver {
                    l.push("--device", Some("0"));
                } else {
                    let d = ["0", "7"][l.rng.gen_range(0..2)];
                    l.push("--device", Some(d));
                    clean = Rule::NoDriver;
                }
            }
        }
        if l.rng.gen_bool(0.45) {
            match l.rng.gen_range(0..9) {
                0..=2 => {
                    if !l.bad_any(own) {
                        l.clap_defect(own);
                    }
                }
                3 if gpu_mode && !l.has("--ptx") => {
                    let m = pool.bad_ptx.choose(l.rng).unwrap();
                    l.push("--ptx", Some(m));
                    l.defects.push(Rule::BadModule);
                }
                3 if !gpu_mode && !l.has("--ptx") => {
                    l.push("--ptx", Some(&pool.main_ptx));
                    l.defects.push(Rule::NoEffectFlag);
                }
                4 if !gpu_mode && !l.has("--threads") && !l.has("--regs") && !l.has("--device") => {
                    // More registers than a block may hold (on any architecture; with --device,
                    // the device's limits decide, read from the driver first).
                    l.push("--threads", Some("1024"));
                    l.push("--regs", Some("255"));
                    l.defects.push(Rule::BadFlag);
                }
                5 if !l.has("--arch") && !l.has("--device") => {
                    l.push("--arch", Some("sm_90"));
                    l.push("--device", Some("0"));
                    l.defects.push(Rule::BadFlag);
                }
                6 if !gpu_mode && !l.has("--max-potential-block-size") => {
                    l.bad(&value("--block-size-limit", &["1"], &["0", "1025", "x"]));
                }
                _ => l.clap_defect(own),
            }
        }
        l.finish(&["calc"], clean)
    }

    /// `report`: results folders good, broken or impossible, and `--out`.
    fn report(&self, rng: &mut StdRng, fresh: &str) -> (Vec<String>, Rule, Option<PathBuf>) {
        let pool = self.pool;
        let mut l = Line::new(rng);
        let mut folders: Vec<String> = Vec::new();
        let good = |rng: &mut StdRng| -> String { pool.good_runs.choose(rng).unwrap().clone() };
        let count = *[1, 1, 1, 2].choose(l.rng).unwrap();
        // The H200 run (experiments 1-5) takes over a second to report in a debug build: alone,
        // in a few lines.
        let count = if l.rng.gen_bool(0.03) {
            folders.push(pool.h200.clone());
            0
        } else {
            count
        };
        for _ in 0..count {
            let mut f = good(l.rng);
            let mut tries = 0;
            while folders.contains(&f) && tries < 10 {
                f = good(l.rng);
                tries += 1;
            }
            if folders.contains(&f) {
                break;
            }
            folders.push(f);
        }
        let mut out: Option<String> = None;
        if folders.len() > 1 || l.rng.gen_bool(0.5) {
            out = Some(fresh.to_owned());
        }
        let mut must_write = out.as_ref().map(|o| PathBuf::from(o).join("report.md"));
        if out.is_some() && l.rng.gen_bool(0.2) {
            l.push("--force", None);
        }
        // The H200 run is not merged (slow): its lines have flag or --out defects only.
        let h200_line = folders.contains(&pool.h200);
        if l.rng.gen_bool(0.5) {
            let pick = l.rng.gen_range(0..9);
            let pick = if h200_line && pick < 6 { 8 } else { pick };
            match pick {
                0..=2 => {
                    let bad = pool.bad_runs.choose(l.rng).unwrap().clone();
                    let at = l.rng.gen_range(0..=folders.len());
                    folders.insert(at, bad);
                    l.defects.push(Rule::BadResults);
                }
                3 => {
                    let bad = pool.impossible_runs.choose(l.rng).unwrap().clone();
                    folders.push(bad);
                    l.defects.push(Rule::ImpossibleResults);
                }
                4 => {
                    let again = folders[0].clone();
                    folders.push(again);
                    if out.is_none() {
                        out = Some(fresh.to_owned());
                    }
                    l.defects.push(Rule::FolderTwice);
                }
                5 if folders.len() == 1 && folders[0] != pool.h200 => {
                    // A merge without --out.
                    let mut f = good(l.rng);
                    while f == folders[0] {
                        f = good(l.rng);
                    }
                    folders.push(f);
                    out = None;
                    l.used.remove("--force");
                    l.groups.retain(|g| g[0] != "--force");
                    l.defects.push(Rule::BadFlag);
                }
                6 => {
                    let (o, force) = match l.rng.gen_range(0..6) {
                        0 => (pool.a_file.clone(), l.rng.gen_bool(0.5)),
                        1 => ("/dev/null".to_owned(), l.rng.gen_bool(0.5)),
                        2 => ("/proc/x".to_owned(), l.rng.gen_bool(0.5)),
                        3 => (pool.unrelated.clone(), false),
                        4 => ("/".to_owned(), false),
                        _ => {
                            // The H200 run into a folder that holds the fixture's.
                            folders = vec![pool.h200.clone()];
                            (pool.taken.clone(), false)
                        }
                    };
                    out = Some(o);
                    l.used.remove("--force");
                    l.groups.retain(|g| g[0] != "--force");
                    if force {
                        l.push("--force", None);
                    }
                    l.defects.push(Rule::BadOut);
                }
                7 => {
                    folders.clear();
                    out = None;
                    l.used.remove("--force");
                    l.groups.retain(|g| g[0] != "--force");
                    l.defects.push(Rule::BadFlag);
                }
                _ => l.clap_defect(&[switch("--force")]),
            }
        }
        if let Some(o) = &out {
            if l.has("--out") {
                unreachable!("--out is given once");
            }
            l.push("--out", Some(o));
        } else {
            must_write = None;
        }
        let (mut args, rule) = l.finish(&["report"], Rule::Report);
        // The folders first, as typed.
        for (i, f) in folders.into_iter().enumerate() {
            args.insert(1 + i, f);
        }
        if out.as_deref() != Some(fresh) {
            must_write = None;
        }
        (args, rule, must_write)
    }

    /// No subcommand, an unknown one, help and version.
    fn top(&self, rng: &mut StdRng) -> (Vec<String>, Rule) {
        let mut subs = experiments();
        subs.extend(["info", "calc", "report"]);
        let sub = *subs.choose(rng).unwrap();
        let count = rng.gen_range(0..4);
        let junk = ["--nonsense", "x", "--device", "-1", "--size", "0", "--out"];
        let tail: Vec<String> = junk
            .choose_multiple(rng, count)
            .map(|s| (*s).to_owned())
            .collect();
        let (args, rule): (Vec<&str>, Rule) = match rng.gen_range(0..10) {
            0 => (vec![], Rule::BadFlag),
            1 => (vec!["bogus"], Rule::BadFlag),
            2 => (vec!["help", "bogus"], Rule::BadFlag),
            3 => (vec!["help"], Rule::Help),
            4 => (vec!["help", sub], Rule::Help),
            5 => (vec![["--help", "-h"][rng.gen_range(0..2)]], Rule::Help),
            6 => (
                vec![["--version", "-V"][rng.gen_range(0..2)]],
                Rule::Version,
            ),
            // Help first: whatever follows is not read.
            _ => {
                let h = ["--help", "-h"][rng.gen_range(0..2)];
                let mut a: Vec<String> = vec![sub.to_owned(), h.to_owned()];
                a.extend(tail);
                return (a, Rule::Help);
            }
        };
        (args.into_iter().map(str::to_owned).collect(), rule)
    }
}
