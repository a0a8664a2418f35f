//! Waiting for the GPU with a limit. A blocking wait (`cuStreamSynchronize`) on a kernel that
//! never ends never returns; here every wait polls (`cuStreamQuery`, `cuEventQuery`) until the
//! work is done or `--launch-timeout` has passed, and the run then ends with what finished
//! written. A GPU left running such a kernel cannot be used again, nor always torn down: every
//! handle that would wait for it on release is leaked instead ([`gpu_hung`]), and a backstop
//! ends the process if tearing down still blocks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The default of `--launch-timeout`: far longer than any wait of a run (a sample lasts
/// milliseconds; the slowest single wait, the f64 reference of a 32768³ product, about a second).
pub const DEFAULT_LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Time and pauses, as the poll loop sees them (a fake one in tests).
pub trait Clock {
    /// Time since some fixed start.
    fn now(&self) -> Duration;
    /// Waits `d` (zero: gives the CPU to another thread once).
    fn pause(&self, d: Duration);
}

/// The wall clock, from its making.
pub struct Wall(Instant);

impl Default for Wall {
    fn default() -> Self {
        Self(Instant::now())
    }
}

impl Clock for Wall {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }

    fn pause(&self, d: Duration) {
        if d.is_zero() {
            std::thread::yield_now();
        } else {
            std::thread::sleep(d);
        }
    }
}

/// How a wait ended without the work done.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited<E> {
    /// The query failed (a fault, for one).
    Failed(E),
    /// Not done after the limit (the time waited).
    TimedOut(Duration),
}

/// Polled back to back for this long, as a spinning `cuStreamSynchronize` would: a sample lasts
/// about a millisecond, and a wait much longer than it wakes a sample late.
const SPIN: Duration = Duration::from_millis(50);
/// After [`SPIN`], pauses grow from this to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_micros(100);
const LONGEST_PAUSE: Duration = Duration::from_millis(50);

/// Polls `done` until it says true, fails, or `limit` has passed on `clock`. The first polls are
/// back to back, then paused, the pauses growing but never past the limit.
pub fn poll_until<E>(
    clock: &impl Clock,
    limit: Duration,
    mut done: impl FnMut() -> Result<bool, E>,
) -> Result<(), Waited<E>> {
    let start = clock.now();
    let mut pause = Duration::ZERO;
    loop {
        if done().map_err(Waited::Failed)? {
            return Ok(());
        }
        let waited = clock.now().saturating_sub(start);
        if waited >= limit {
            return Err(Waited::TimedOut(waited));
        }
        if waited >= SPIN {
            pause = (pause * 2).clamp(FIRST_PAUSE, LONGEST_PAUSE);
        }
        clock.pause(pause.min(limit - waited));
    }
}

/// Set once a wait has timed out: a kernel still runs and the GPU is not released.
static HUNG: AtomicBool = AtomicBool::new(false);

/// Whether a launch never completed in this process (the handles that would wait for it on
/// release are then leaked).
pub fn gpu_hung() -> bool {
    HUNG.load(Ordering::Relaxed)
}

/// How long the run has, after a wait timed out, to write its results and exit before the
/// backstop ends the process: the unwinding from the wait can itself be held by the driver (seen
/// on the H200: the thread spins in the driver while the kernel runs).
const GRACE_SECS: libc::c_uint = 10;

/// What the backstop writes, fixed before the hang (a signal handler may not allocate).
const BACKSTOP_MESSAGE: &str = "error: the driver still holds the GPU 10 s after the launch \
    timeout (a kernel never completed); ending the process (exit code 4)\n";

/// The backstop, run as the SIGALRM handler: writes [`BACKSTOP_MESSAGE`] to fd 2 and ends the
/// process with exit code 4. A signal, not a thread: a thread started after the hang was seen
/// (call S11a on the H200) blocked on a lock while the main thread spun in the driver, and never
/// ended the process; a handler runs on the spinning thread itself and calls only `write` and
/// `_exit`, which take no lock.
extern "C" fn backstop(_: libc::c_int) {
    // SAFETY: both calls are async-signal-safe; the buffer is static. A short or failed write
    // only loses the message. `_exit` ends the process at once, without the exit handlers that
    // would wait for the GPU; nothing is left to flush (the results were written).
    unsafe {
        libc::write(2, BACKSTOP_MESSAGE.as_ptr().cast(), BACKSTOP_MESSAGE.len());
        libc::_exit(4)
    }
}

/// Notes that a wait timed out (`what`: the error, which the run may never get to print: it is
/// printed here), and arms the backstop: if the process has not exited [`GRACE_SECS`] later (a
/// driver call waiting for the kernel), it ends it with exit code 4, what finished already
/// written.
pub fn note_hung(what: &dyn std::fmt::Display) {
    if HUNG.swap(true, Ordering::Relaxed) {
        return;
    }
    eprintln!("error: {what}; the run ends here, what finished is written");
    // SAFETY: `backstop` has the handler signature and is async-signal-safe; nothing else in the
    // process uses SIGALRM or `alarm`.
    unsafe {
        libc::signal(
            libc::SIGALRM,
            backstop as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::alarm(GRACE_SECS);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

    /// A clock that moves only when paused, by the pause (a yield moves it by `tick`).
    struct Fake {
        now: Cell<Duration>,
        tick: Duration,
        pauses: RefCell<Vec<Duration>>,
    }

    impl Fake {
        fn new(tick: Duration) -> Self {
            Self {
                now: Cell::new(Duration::ZERO),
                tick,
                pauses: RefCell::new(Vec::new()),
            }
        }
    }

    impl Clock for Fake {
        fn now(&self) -> Duration {
            self.now.get()
        }
        fn pause(&self, d: Duration) {
            self.pauses.borrow_mut().push(d);
            self.now.set(self.now.get() + d.max(self.tick));
        }
    }

    #[test]
    fn work_that_finishes_ends_the_wait_at_once() {
        let clock = Fake::new(Duration::from_micros(10));
        let mut polls = 0;
        let r = poll_until::<()>(&clock, Duration::from_secs(60), || {
            polls += 1;
            Ok(polls == 3)
        });
        assert_eq!(r, Ok(()));
        assert_eq!(polls, 3);
        assert_eq!(
            *clock.pauses.borrow(),
            [Duration::ZERO; 2],
            "spins at first"
        );
    }

    #[test]
    fn work_that_never_finishes_times_out_at_the_limit() {
        let clock = Fake::new(Duration::from_micros(10));
        let limit = Duration::from_secs(60);
        let mut polls = 0u64;
        let r = poll_until::<()>(&clock, limit, || {
            polls += 1;
            Ok(false)
        });
        let Err(Waited::TimedOut(waited)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            waited, limit,
            "never past the limit: the last pause is cut to it"
        );
        // Spinning for 50 ms at 10 µs a poll, then pauses of at most 50 ms: a bounded number of
        // polls, not one per microsecond.
        assert!(polls < 5_000 + 1_300, "{polls}");
        let pauses = clock.pauses.borrow();
        assert!(pauses.iter().all(|p| *p <= LONGEST_PAUSE));
        assert_eq!(
            pauses.iter().rev().nth(1),
            Some(&LONGEST_PAUSE),
            "pauses grow"
        );
    }

    #[test]
    fn a_failed_query_ends_the_wait_with_its_error() {
        let clock = Fake::new(Duration::from_micros(10));
        let mut polls = 0;
        let r = poll_until(&clock, Duration::from_secs(1), || {
            polls += 1;
            match polls {
                1..=3 => Ok(false),
                _ => Err("illegal address"),
            }
        });
        assert_eq!(r, Err(Waited::Failed("illegal address")));
    }

    #[test]
    fn the_backstop_message_states_the_grace_and_ends_its_line() {
        assert!(BACKSTOP_MESSAGE.contains(&format!(" {GRACE_SECS} s after")));
        assert!(BACKSTOP_MESSAGE.ends_with("(exit code 4)\n"));
    }

    /// The backstop ends a process whose thread spins after the hang with exit code 4 and its
    /// message: this test runs itself again as a child that notes a hang and spins forever.
    #[test]
    fn a_process_that_spins_after_a_hang_is_ended_by_the_backstop() {
        const CHILD: &str = "HOST_BACKSTOP_CHILD";
        if std::env::var_os(CHILD).is_some() {
            note_hung(&"a test hang");
            #[allow(clippy::empty_loop)]
            loop {}
        }
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "cuda::deadline::tests::a_process_that_spins_after_a_hang_is_ended_by_the_backstop",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Not a timing test: the wait is bounded only so that a broken backstop fails the test
        // instead of hanging it.
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > Duration::from_secs(120) {
                child.kill().unwrap();
                panic!("the backstop did not end the spinning child");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{stderr}");
        assert!(
            stderr.contains("error: a test hang; the run ends here"),
            "{stderr}"
        );
        assert!(stderr.contains(BACKSTOP_MESSAGE), "{stderr}");
    }

    #[test]
    fn a_short_limit_is_kept() {
        let clock = Fake::new(Duration::from_millis(7));
        let r = poll_until::<()>(&clock, Duration::from_millis(20), || Ok(false));
        let Err(Waited::TimedOut(waited)) = r else {
            panic!("{r:?}")
        };
        assert!(waited >= Duration::from_millis(20) && waited < Duration::from_millis(27));
    }
}
