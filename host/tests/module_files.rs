//! `--module`, `--compare` and `calc --ptx` files on the command line: only regular files are
//! read (a device, FIFO or folder is refused at once, never read or opened), each is told PTX,
//! cubin or fatbin by its first bytes, a cubin must be an NVIDIA ELF, and it must export what the
//! run launches. Usage errors, exit code 2; no GPU needed.

mod support;

use kernels_gpu::variants::MEMCPY;
use support::{cubin, host, mkfifo, path, scratch, stderr};

fn t1_entry() -> &'static str {
    MEMCPY.iter().find(|v| v.label == "T1").unwrap().entry
}

#[test]
fn a_real_cubin_with_the_entries_passes_and_one_without_them_is_refused() {
    let dir = scratch("cubin");
    let good = cubin(&dir, "good", &[t1_entry(), "helper_kernel"]);
    let o = host(&[
        "bandwidth",
        "--variants",
        "T1",
        "--module",
        path(&good),
        "--check-only",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let other = cubin(&dir, "other", &["helper_kernel"]);
    let o = host(&[
        "bandwidth",
        "--variants",
        "T1",
        "--compare",
        path(&other),
        "--check-only",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "has no entry `{}`; entries in it: helper_kernel",
            t1_entry()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_elf_file_that_is_not_nvidias_is_not_a_cubin() {
    // This test program is an ELF file for the machine it runs on.
    let me = std::env::current_exe().unwrap();
    for flag in ["--module", "--compare"] {
        let o = host(&["occupancy", flag, path(&me), "--check-only"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(flag)
                && err.contains("is not a kernel module: it is an ELF file for machine")
                && err.contains("not a cubin"),
            "{err}"
        );
    }
}

#[test]
fn devices_fifos_and_folders_are_refused_without_being_read() {
    let dir = scratch("special");
    let fifo = dir.join("peer.cubin");
    let mut special = vec![
        ("/dev/zero".to_owned(), "a character device"),
        ("/dev/null".to_owned(), "a character device"),
        (path(&dir).to_owned(), "a folder"),
    ];
    if mkfifo(&fifo) {
        special.push((path(&fifo).to_owned(), "a FIFO"));
    }
    for (file, what) in &special {
        for args in [
            &["occupancy", "--compare", file, "--check-only"][..],
            &["bandwidth", "--module", file],
            &["calc", "--verify", "--ptx", file],
        ] {
            let o = host(args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(what), "{args:?}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fatbin_is_recognised_and_the_cubin_inside_checked() {
    let dir = scratch("fatbin");
    let inner = cubin(&dir, "inner", &[t1_entry()]);
    let fatbin = dir.join("peer.fatbin");
    let tool = support::ptxas().with_file_name("fatbinary");
    let made = tool.is_file()
        && std::process::Command::new(&tool)
            .arg(format!("--create={}", fatbin.display()))
            .arg(format!("--image3=kind=elf,sm=90,file={}", inner.display()))
            .status()
            .is_ok_and(|s| s.success());
    if !made {
        // No fatbinary tool beside ptxas: the container by hand (header, one ELF entry).
        let elf = std::fs::read(&inner).unwrap();
        let mut entry = vec![0u8; 64];
        entry[..2].copy_from_slice(&2u16.to_le_bytes());
        entry[4..8].copy_from_slice(&64u32.to_le_bytes());
        entry[8..16].copy_from_slice(&(elf.len() as u64).to_le_bytes());
        let mut f = 0xBA55_ED50u32.to_le_bytes().to_vec();
        f.extend(1u16.to_le_bytes());
        f.extend(16u16.to_le_bytes());
        f.extend(((64 + elf.len()) as u64).to_le_bytes());
        f.extend(entry);
        f.extend(elf);
        std::fs::write(&fatbin, f).unwrap();
    }
    let o = host(&[
        "bandwidth",
        "--variants",
        "T1",
        "--compare",
        path(&fatbin),
        "--check-only",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = host(&[
        "bandwidth",
        "--variants",
        "T2",
        "--compare",
        path(&fatbin),
        "--check-only",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("has no entry"), "{}", stderr(&o));
    // Cut short, it is damaged.
    let bytes = std::fs::read(&fatbin).unwrap();
    std::fs::write(&fatbin, &bytes[..bytes.len() / 2]).unwrap();
    let o = host(&["bandwidth", "--compare", path(&fatbin), "--check-only"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("starts as a fatbinary but is damaged"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_results_json_that_is_a_fifo_or_a_device_is_refused() {
    // `host report DIR` exits 2, saying what DIR's results.json is instead of a file.
    let refused = |dir: &std::path::Path, what: &str| {
        let o = host(&["report", path(dir)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("is {what}, not a regular file")),
            "{err}"
        );
    };
    let dir = scratch("report-fifo");
    assert!(mkfifo(&dir.join("results.json")), "mkfifo");
    refused(&dir, "a FIFO (named pipe)");
    // A results.json that is a device, through a link (metadata follows it).
    let device = scratch("report-device");
    std::os::unix::fs::symlink("/dev/zero", device.join("results.json")).unwrap();
    refused(&device, "a character device");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&device).unwrap();
}
