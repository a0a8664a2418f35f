//! Built-in modules loaded once per GPU and shared by every experiment of a run.
//!
//! The built-in kernels are PTX, compiled at every run (the driver's JIT cache is off: the
//! register columns come from the compile's report), by ptxas processes started at once where a
//! ptxas is found (`ptx_assembly.rs`), else by the driver; the main and tensor-core modules take
//! seconds each. `host all` used to compile the main module once per experiment. Here each
//! built-in image is compiled once, and a `get` on another thread can compile one while the GPU
//! runs an earlier experiment (`Gpu::warm_builtin`). Generic over what is kept, so that its rules are
//! tested without a GPU. The images themselves are [`crate::kernel_source::builtin`]'s; the cache
//! is kept by the GPU that compiled them, so it stands in the driver's layer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::module::JitOptions;

/// A built-in image and the JIT options it is compiled with. Images compare by their bytes, not
/// by address: each use of a `const` string may be its own copy in the binary. Hashing the
/// largest module costs milliseconds, against seconds for compiling it.
type Key = (&'static [u8], JitOptions);

/// One image's slot: empty until a load finishes; `None` when that load failed (a later
/// caller then loads again itself, for the error).
type Slot<M> = Arc<OnceLock<Option<Arc<M>>>>;

/// The modules (`M`) compiled so far on one GPU.
pub struct ModuleCache<M> {
    slots: Mutex<HashMap<Key, Slot<M>>>,
}

impl<M> Default for ModuleCache<M> {
    fn default() -> Self {
        ModuleCache {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<M> ModuleCache<M> {
    fn slot(&self, key: Key) -> Slot<M> {
        // A poisoned lock only means another thread panicked while inserting: the map is
        // still whole.
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(key).or_default().clone()
    }

    /// `image` compiled with `jit` by `load`: compiled now, or shared from an earlier load.
    /// Waits while another thread compiles it. A failed load is not kept: it is tried again
    /// here, so the error comes back to the caller.
    pub fn get<E>(
        &self,
        image: &'static [u8],
        jit: JitOptions,
        load: impl Fn() -> Result<M, E>,
    ) -> Result<Arc<M>, E> {
        let slot = self.slot((image, jit));
        let mut error = None;
        let loaded = slot.get_or_init(|| match load() {
            Ok(m) => Some(Arc::new(m)),
            Err(e) => {
                error = Some(e);
                None
            }
        });
        match (loaded, error) {
            (Some(m), _) => Ok(m.clone()),
            (None, Some(e)) => Err(e),
            (None, None) => load().map(Arc::new),
        }
    }

    /// How many images are compiled and kept.
    pub fn kept(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .values()
            .filter(|s| matches!(s.get(), Some(Some(_))))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A "module" that records which load made it.
    struct Made(usize);

    /// A cache whose loads make [`Made`]s numbered in the order they ran.
    #[derive(Default)]
    struct Counting {
        cache: ModuleCache<Made>,
        loads: AtomicUsize,
    }

    impl Counting {
        /// `image` under `jit`, made by a counting load where not kept.
        fn get(&self, image: &'static [u8], jit: JitOptions) -> Arc<Made> {
            let load = || Ok::<_, String>(Made(self.loads.fetch_add(1, Ordering::SeqCst)));
            self.cache.get(image, jit, load).unwrap()
        }

        fn plain(&self, image: &'static [u8]) -> Arc<Made> {
            self.get(image, JitOptions::default())
        }

        fn loads(&self) -> usize {
            self.loads.load(Ordering::SeqCst)
        }
    }

    fn leak(text: &str) -> &'static [u8] {
        Box::leak(text.as_bytes().to_vec().into_boxed_slice())
    }

    #[test]
    fn an_image_is_compiled_once_wherever_its_bytes_lie_and_per_register_cap() {
        let t = Counting::default();
        // Two copies of the same text at two addresses, as two uses of a const may be.
        let (one, two) = (leak(".entry a"), leak(".entry a"));
        assert_ne!(one.as_ptr(), two.as_ptr());
        let first = t.plain(one);
        let again = t.plain(two);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!((t.loads(), t.cache.kept()), (1, 1));
        // Other bytes, or another register cap, are other modules.
        let b = t.plain(leak(".entry b"));
        let c = t.get(
            one,
            JitOptions {
                max_registers: Some(64),
            },
        );
        assert_eq!((first.0, b.0, c.0), (0, 1, 2));
        assert_eq!(t.cache.kept(), 3);
    }

    #[test]
    fn a_failed_load_is_reported_to_every_caller_and_not_kept() {
        let cache: ModuleCache<Made> = ModuleCache::default();
        let tries = AtomicUsize::new(0);
        let failing = || -> Result<Made, String> {
            let n = tries.fetch_add(1, Ordering::SeqCst);
            Err(format!("bad PTX (try {n})"))
        };
        let image = leak(".entry broken");
        // A warm-up that fails (its error dropped, as `Gpu::warm_builtin` does) keeps nothing;
        // the next caller loads again and gets the error.
        let get = || cache.get(image, JitOptions::default(), failing);
        let _ = get();
        assert_eq!(get().err().unwrap(), "bad PTX (try 1)");
        assert_eq!(get().err().unwrap(), "bad PTX (try 2)");
        assert_eq!(cache.kept(), 0);
    }

    #[test]
    fn a_caller_waits_for_a_warm_up_on_another_thread_instead_of_compiling_again() {
        let t = Counting::default();
        let image = leak(".entry slow");
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let slow = || -> Result<Made, String> {
            started_tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(200));
            Ok(Made(t.loads.fetch_add(1, Ordering::SeqCst)))
        };
        std::thread::scope(|s| {
            s.spawn(|| {
                let _ = t.cache.get(image, JitOptions::default(), slow);
            });
            // The warm-up has begun compiling; this caller must wait for it.
            started_rx.recv().unwrap();
            let m = t.plain(image);
            assert_eq!(m.0, 0, "the caller got the warm-up's module");
        });
        assert_eq!(t.loads(), 1);
    }
}
