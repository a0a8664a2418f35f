//! What the program prints on stdout, written so that a write can fail without a panic: a reader
//! that stops reading (`host calc --curves | head -1`) ends the printing quietly, and any other
//! failure (a full disk, `> /dev/full`) is an error naming stdout. `print!` panics on both.

use std::io::Write;

/// Writing to stdout failed for a reason other than its reader having gone.
#[derive(Debug, thiserror::Error)]
#[error("writing to stdout: {0}")]
pub struct StdoutError(#[source] pub std::io::Error);

/// What became of a text printed with [`print_to`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// All of it was written.
    Whole,
    /// The reader closed its end (a broken pipe): the rest was dropped, which is not an error,
    /// as the reader asked for no more.
    ReaderGone,
}

/// Writes `text` to `out` and flushes it.
pub fn print_to(out: &mut impl Write, text: &str) -> Result<Printed, StdoutError> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(Printed::Whole),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Printed::ReaderGone),
        Err(e) => Err(StdoutError(e)),
    }
}

/// Writes `text` to stdout ([`print_to`]).
pub fn print(text: &str) -> Result<Printed, StdoutError> {
    print_to(&mut std::io::stdout().lock(), text)
}

/// Writes a line to stderr, dropping it when stderr cannot be written (`2>/dev/full`, a closed
/// pipe): a message about the run must never end it, and there is nowhere else to say so.
pub fn note(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes `room` bytes and then fails with `kind`.
    struct Fails {
        room: usize,
        kind: std::io::ErrorKind,
        taken: Vec<u8>,
    }

    impl Write for Fails {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(self.kind.into());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_gone_reader_is_no_error_and_a_full_device_is_one_naming_stdout() {
        let mut ok = Vec::new();
        assert_eq!(print_to(&mut ok, "abc").unwrap(), Printed::Whole);
        assert_eq!(ok, b"abc");
        let fails = |room, kind| Fails {
            room,
            kind,
            taken: Vec::new(),
        };
        let mut pipe = fails(2, std::io::ErrorKind::BrokenPipe);
        assert_eq!(print_to(&mut pipe, "abcdef").unwrap(), Printed::ReaderGone);
        assert_eq!(pipe.taken, b"ab");
        let mut full = fails(0, std::io::ErrorKind::StorageFull);
        let e = print_to(&mut full, "abc").unwrap_err().to_string();
        assert!(e.starts_with("writing to stdout: "), "{e}");
    }
}
