//! `host inflight` and `host ilp` on the command line: a kernel the variant table does not build
//! is a usage error (exit code 2, as for every bad flag), named with the values that are built.
//! No GPU is needed: the flags are refused before any driver call.

mod support;

use support::{host, stderr};

#[test]
fn an_off_grid_copy_flag_exits_2_naming_the_grid() {
    for (args, named) in [
        (&["inflight", "--loads", "4,5"][..], "--loads 5"),
        (&["inflight", "--threads", "96"], "--threads 96"),
        (&["inflight", "--widths", "3"], "--widths 3"),
    ] {
        let o = host(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(named) && err.contains("not in the memcpy grid"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn an_ilp_without_a_kernel_exits_2_naming_the_built_ones() {
    let o = host(&["ilp", "--ilp", "1,7"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no fma_ilp7 kernel (built: 1, 2, 3, 4, 5, 6, 8, 12, 16)"),
        "{err}"
    );
}
