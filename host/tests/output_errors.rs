//! What the program does when its output cannot be written: a reader that stops reading
//! (`host calc --curves | head -1`) ends the printing without a message, the exit code the run's
//! own, and the run's files still written; a full stdout (`> /dev/full`) is an error naming
//! stdout, exit code 4. Neither panics. No GPU needed.

mod support;

use std::process::Stdio;

use support::{fixture_dir, host_to, path, scratch, stderr};

/// A stdout whose reader is gone before the program starts: every write to it fails with a
/// broken pipe (what `| head -1` does once head has its line, without the race).
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer.into()
}

#[test]
fn a_closed_stdout_ends_the_printing_quietly_and_the_files_are_written() {
    let root = scratch("closed-stdout");
    let out = root.join("out");
    for args in [
        vec!["calc", "--curves"],
        vec!["calc", "--cliff", "--format", "json"],
        vec!["--help"],
        vec!["report", path(&fixture_dir()), "--out", path(&out)],
    ] {
        let o = host_to(&args, closed_pipe());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: no message, got {err:?}");
    }
    for file in ["results.json", "tables.md", "report.md", "occupancy.csv"] {
        assert!(out.join(file).is_file(), "{file} was not written");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
#[cfg(target_os = "linux")]
fn a_full_stdout_is_an_error_naming_it_with_exit_code_4() {
    let root = scratch("full-stdout");
    let out = root.join("out");
    for args in [
        vec!["calc"],
        vec!["calc", "--curves"],
        vec!["--help"],
        vec!["report", path(&fixture_dir()), "--out", path(&out)],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = host_to(&args, full.into());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(4), "{args:?}: {err}");
        assert_eq!(
            err.trim_end(),
            "error: writing to stdout: No space left on device (os error 28)",
            "{args:?}"
        );
    }
    assert!(out.join("results.json").is_file());
    std::fs::remove_dir_all(&root).unwrap();
}
