//! Where the CUDA toolkit's pieces are: one search for ptxas, nvcc, nvdisasm, cuBLAS and CUPTI,
//! each tool a [`Tool`] that lists where it is looked for, in order.
//!
//! It lives in this crate because this is the lowest one that all its users depend on: xtask
//! (ptxas, and nvcc, also from its build script), xtask's tests (nvdisasm) and the running host
//! (the libraries' candidates; the host opens them with its own loader). kernels-gpu, the other
//! leaf, is also built for the GPU without std.
//!
//! The search reads the machine only through an [`Env`] and a probe that are passed in, so the
//! tests below pin every tool's order on a made-up machine.

use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The toolkit's usual root.
pub const USR_LOCAL_CUDA: &str = "/usr/local/cuda";

/// One place a tool is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The file an environment variable names (`$PTXAS`).
    Env(&'static str),
    /// Each file name bare, for the dynamic loader's own search (its cache, `LD_LIBRARY_PATH`);
    /// never probed, since only the loader knows where it looks.
    Loader,
    /// Under the CUDA root an environment variable names: `$CUDA_PATH/<dir>/<name>`.
    Root(&'static str),
    /// Each folder of `$PATH`, in order.
    PathDirs,
    /// Under a fixed root: `/usr/local/cuda/<dir>/<name>`.
    Fixed(&'static str),
    /// pip's nvidia wheels: `<purelib>/nvidia/cu13/bin/<name>`, then `cu12`.
    PipWheel,
    /// In the folder of the file another tool's search finds.
    Beside(&'static Tool),
}

/// A tool and where it is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// Its file names, newest first.
    pub files: &'static [&'static str],
    /// The folders under a CUDA root ([`Place::Root`], [`Place::Fixed`]) that hold it.
    pub dirs: &'static [&'static str],
    /// Where it is looked for, in order.
    pub places: &'static [Place],
    /// Whether a file is taken only when the probe finds it. nvdisasm's is not probed: the first
    /// candidate is run, and a missing file says so when it is spawned.
    pub probed: bool,
}

/// `ptxas`: `$PTXAS`, `$CUDA_PATH/bin`, PATH, `/usr/local/cuda/bin`, then pip's
/// `nvidia-cuda-nvcc` wheel.
pub const PTXAS: Tool = Tool {
    files: &["ptxas"],
    dirs: &["bin"],
    places: &[
        Place::Env("PTXAS"),
        Place::Root("CUDA_PATH"),
        Place::PathDirs,
        Place::Fixed(USR_LOCAL_CUDA),
        Place::PipWheel,
    ],
    probed: true,
};

/// `nvcc`: as ptxas, without pip's wheel: pip pairs it with the newest `nvidia-nvvm`, whose front
/// end emits PTX that the wheel's ptxas refuses. Installed with a matching nvvm, it is used
/// through `$NVCC`. Also searched from xtask's build script.
pub const NVCC: Tool = Tool {
    files: &["nvcc"],
    dirs: &["bin"],
    places: &[
        Place::Env("NVCC"),
        Place::Root("CUDA_PATH"),
        Place::PathDirs,
        Place::Fixed(USR_LOCAL_CUDA),
    ],
    probed: true,
};

/// `nvdisasm`: `$NVDISASM`, else beside the ptxas found (a toolkit's bin; pip's ptxas wheel has
/// none, so `.ci/run` installs pip's `nvidia-cuda-nvdisasm` and sets NVDISASM).
pub const NVDISASM: Tool = Tool {
    files: &["nvdisasm"],
    dirs: &[],
    places: &[Place::Env("NVDISASM"), Place::Beside(&PTXAS)],
    probed: false,
};

/// cuBLAS: its usual names, newest first, through the dynamic loader alone.
pub const CUBLAS: Tool = Tool {
    files: &[
        "libcublas.so.13",
        "libcublas.so.12",
        "libcublas.so.11",
        "libcublas.so",
    ],
    dirs: &[],
    places: &[Place::Loader],
    probed: true,
};

/// CUPTI: its names through the dynamic loader, then the files that exist in CUPTI's folders
/// under `$CUDA_PATH`, `$CUDA_HOME` and `/usr/local/cuda` (a toolkit keeps CUPTI outside the
/// loader's search path).
pub const CUPTI: Tool = Tool {
    files: &["libcupti.so.13", "libcupti.so.12", "libcupti.so"],
    dirs: &[
        "targets/x86_64-linux/lib",
        "targets/sbsa-linux/lib",
        "extras/CUPTI/lib64",
        "lib64",
    ],
    places: &[
        Place::Loader,
        Place::Root("CUDA_PATH"),
        Place::Root("CUDA_HOME"),
        Place::Fixed(USR_LOCAL_CUDA),
    ],
    probed: true,
};

/// What the search reads of the machine besides its files.
pub trait Env {
    /// An environment variable.
    fn var(&self, name: &str) -> Option<OsString>;
    /// pip's site-packages (`sysconfig`'s purelib); asked only when a search reaches
    /// [`Place::PipWheel`], since it runs Python.
    fn pip_purelib(&self) -> Option<PathBuf>;
}

/// This process's environment, and `python3` for pip's site-packages.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn pip_purelib(&self) -> Option<PathBuf> {
        let out = Command::new("python3")
            .args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ])
            .output()
            .ok()?;
        Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    }
}

/// One thing to try: a bare name for the dynamic loader, or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    Loader(&'static str),
    File(PathBuf),
}

impl Candidate {
    /// The candidate as a path (a bare name is a relative one, which the loader searches for).
    pub fn into_path(self) -> PathBuf {
        match self {
            Candidate::Loader(name) => PathBuf::from(name),
            Candidate::File(path) => path,
        }
    }
}

impl Tool {
    /// The first candidate (a program's file).
    pub fn find(&self, env: &dyn Env, probe: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
        let mut found = None;
        let _ = self.walk(env, probe, &mut |c| {
            found = Some(c);
            ControlFlow::Break(())
        });
        found.map(Candidate::into_path)
    }

    /// Every candidate, in order, each once (a library's, which the loader tries in turn).
    pub fn candidates(&self, env: &dyn Env, probe: &dyn Fn(&Path) -> bool) -> Vec<Candidate> {
        let mut out = Vec::new();
        let _ = self.walk(env, probe, &mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
            ControlFlow::Continue(())
        });
        out
    }

    /// The places in words, in order, for a message that says where a tool was looked for
    /// ("$PTXAS, $CUDA_PATH/bin, PATH, ...").
    pub fn looked_at(&self) -> String {
        let under = |root: &str| match self.dirs {
            [dir] => format!("{root}/{dir}"),
            dirs => format!("{root}/{{{}}}", dirs.join(",")),
        };
        self.places
            .iter()
            .map(|place| match *place {
                Place::Env(var) => format!("${var}"),
                Place::Loader => "the dynamic loader's search".to_string(),
                Place::Root(var) => under(&format!("${var}")),
                Place::PathDirs => "PATH".to_string(),
                Place::Fixed(root) => under(root),
                Place::PipWheel => "pip's nvidia wheels".to_string(),
                Place::Beside(other) => format!("beside {}", other.files.join("/")),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The environment variables the search reads (what a build script reruns on).
    pub fn env_vars(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for place in self.places {
            match *place {
                Place::Env(var) | Place::Root(var) => out.push(var),
                Place::PathDirs => out.push("PATH"),
                Place::Beside(other) => out.extend(other.env_vars()),
                Place::Loader | Place::Fixed(_) | Place::PipWheel => {}
            }
        }
        out
    }

    /// The one search: each place in order, each offering its candidates to `take` until it
    /// breaks.
    fn walk(
        &self,
        env: &dyn Env,
        probe: &dyn Fn(&Path) -> bool,
        take: &mut dyn FnMut(Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut offer = |candidate: Candidate| match &candidate {
            Candidate::File(path) if self.probed && !probe(path) => ControlFlow::Continue(()),
            _ => take(candidate),
        };
        for place in self.places {
            match *place {
                Place::Env(var) => {
                    if let Some(path) = env.var(var) {
                        offer(Candidate::File(PathBuf::from(path)))?;
                    }
                }
                Place::Loader => {
                    for name in self.files {
                        offer(Candidate::Loader(name))?;
                    }
                }
                Place::Root(var) => {
                    if let Some(root) = env.var(var) {
                        self.under(Path::new(&root), &mut offer)?;
                    }
                }
                Place::Fixed(root) => self.under(Path::new(root), &mut offer)?,
                Place::PathDirs => {
                    if let Some(path) = env.var("PATH") {
                        for dir in std::env::split_paths(&path) {
                            for name in self.files {
                                offer(Candidate::File(dir.join(name)))?;
                            }
                        }
                    }
                }
                Place::PipWheel => {
                    if let Some(site) = env.pip_purelib() {
                        for version in ["cu13", "cu12"] {
                            for name in self.files {
                                offer(Candidate::File(
                                    site.join("nvidia").join(version).join("bin").join(name),
                                ))?;
                            }
                        }
                    }
                }
                Place::Beside(other) => {
                    if let Some(found) = other.find(env, probe) {
                        for name in self.files {
                            offer(Candidate::File(found.with_file_name(name)))?;
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// `root/<dir>/<name>` for each of the tool's folders and names.
    fn under(
        &self,
        root: &Path,
        offer: &mut dyn FnMut(Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        for dir in self.dirs {
            for name in self.files {
                offer(Candidate::File(root.join(dir).join(name)))?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// Each tool's order on a made-up machine: every variable set, a probe that records what it is
/// asked and finds only the files it is given.
#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    struct FakeEnv {
        vars: HashMap<&'static str, &'static str>,
        pip_asked: Cell<bool>,
    }

    impl Env for FakeEnv {
        fn var(&self, name: &str) -> Option<OsString> {
            self.vars.get(name).map(OsString::from)
        }
        fn pip_purelib(&self) -> Option<PathBuf> {
            self.pip_asked.set(true);
            Some(PathBuf::from("/site"))
        }
    }

    fn machine() -> FakeEnv {
        FakeEnv {
            vars: HashMap::from([
                ("PTXAS", "/env/ptxas"),
                ("NVCC", "/env/nvcc"),
                ("NVDISASM", "/env/nvdisasm"),
                ("CUDA_PATH", "/cp"),
                ("CUDA_HOME", "/ch"),
                ("PATH", "/a:/b"),
            ]),
            pip_asked: Cell::new(false),
        }
    }

    /// Every path `tool` probes, in order, on `env` where no file exists.
    fn probed(tool: &Tool, env: &FakeEnv) -> Vec<String> {
        let asked = RefCell::new(Vec::new());
        let none = |p: &Path| {
            asked.borrow_mut().push(p.display().to_string());
            false
        };
        assert_eq!(tool.find(env, &none), None);
        asked.into_inner()
    }

    #[test]
    fn ptxas_order_is_its_variable_cuda_path_path_usr_local_cuda_then_pips_wheel() {
        let env = machine();
        assert_eq!(
            probed(&PTXAS, &env),
            [
                "/env/ptxas",
                "/cp/bin/ptxas",
                "/a/ptxas",
                "/b/ptxas",
                "/usr/local/cuda/bin/ptxas",
                "/site/nvidia/cu13/bin/ptxas",
                "/site/nvidia/cu12/bin/ptxas",
            ]
        );
    }

    #[test]
    fn a_found_tool_ends_the_search_before_python_is_asked() {
        let env = machine();
        let at = |p: &Path| p == Path::new("/b/ptxas");
        assert_eq!(PTXAS.find(&env, &at), Some(PathBuf::from("/b/ptxas")));
        assert!(!env.pip_asked.get());
    }

    #[test]
    fn nvcc_order_is_ptxas_order_without_pips_wheel() {
        let env = machine();
        let ptxas = probed(&PTXAS, &env);
        let (places, wheel) = ptxas.split_at(ptxas.len() - 2);
        assert!(wheel.iter().all(|p| p.starts_with("/site/")));
        let env = machine();
        assert_eq!(
            probed(&NVCC, &env),
            places
                .iter()
                .map(|p| p.replace("ptxas", "nvcc"))
                .collect::<Vec<_>>()
        );
        assert!(!env.pip_asked.get(), "nvcc never looks in pip's wheel");
    }

    #[test]
    fn nvdisasm_is_its_variable_unprobed_else_beside_the_ptxas_found() {
        let env = machine();
        let none = |_: &Path| false;
        assert_eq!(
            NVDISASM.find(&env, &none),
            Some(PathBuf::from("/env/nvdisasm"))
        );
        let mut env = machine();
        env.vars.remove("NVDISASM");
        let at = |p: &Path| p == Path::new("/site/nvidia/cu13/bin/ptxas");
        assert_eq!(
            NVDISASM.find(&env, &at),
            Some(PathBuf::from("/site/nvidia/cu13/bin/nvdisasm"))
        );
        assert_eq!(NVDISASM.find(&env, &none), None, "no ptxas, no nvdisasm");
    }

    #[test]
    fn cublas_is_its_names_for_the_loader_alone() {
        let env = machine();
        let never = |p: &Path| panic!("cuBLAS probed {}", p.display());
        assert_eq!(
            CUBLAS.candidates(&env, &never),
            [
                "libcublas.so.13",
                "libcublas.so.12",
                "libcublas.so.11",
                "libcublas.so"
            ]
            .map(Candidate::Loader)
        );
    }

    #[test]
    fn cupti_order_is_its_names_then_existing_files_under_each_root_and_folder() {
        let env = machine();
        let all = |_: &Path| true;
        let found: Vec<PathBuf> = CUPTI
            .candidates(&env, &all)
            .into_iter()
            .map(Candidate::into_path)
            .collect();
        let mut expected: Vec<PathBuf> = CUPTI.files.iter().map(PathBuf::from).collect();
        for root in ["/cp", "/ch", "/usr/local/cuda"] {
            for dir in [
                "targets/x86_64-linux/lib",
                "targets/sbsa-linux/lib",
                "extras/CUPTI/lib64",
                "lib64",
            ] {
                for name in ["libcupti.so.13", "libcupti.so.12", "libcupti.so"] {
                    expected.push(Path::new(root).join(dir).join(name));
                }
            }
        }
        assert_eq!(found, expected);
        assert_eq!(
            &found[..4],
            [
                "libcupti.so.13",
                "libcupti.so.12",
                "libcupti.so",
                "/cp/targets/x86_64-linux/lib/libcupti.so.13"
            ]
            .map(PathBuf::from)
        );
        assert!(!env.pip_asked.get());
        // A root named twice gives its files once; a missing file is no candidate.
        let mut env = machine();
        env.vars.insert("CUDA_HOME", "/cp");
        let one = |p: &Path| p == Path::new("/cp/lib64/libcupti.so.12");
        assert_eq!(
            CUPTI.candidates(&env, &one)[3..],
            [Candidate::File(PathBuf::from("/cp/lib64/libcupti.so.12"))]
        );
    }

    #[test]
    fn the_places_in_words() {
        assert_eq!(
            PTXAS.looked_at(),
            "$PTXAS, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, pip's nvidia wheels"
        );
        assert_eq!(NVDISASM.looked_at(), "$NVDISASM, beside ptxas");
        assert_eq!(
            CUPTI.looked_at(),
            "the dynamic loader's search, $CUDA_PATH/{targets/x86_64-linux/lib,\
             targets/sbsa-linux/lib,extras/CUPTI/lib64,lib64}, $CUDA_HOME/{targets/x86_64-linux/lib,\
             targets/sbsa-linux/lib,extras/CUPTI/lib64,lib64}, /usr/local/cuda/{targets/x86_64-linux/lib,\
             targets/sbsa-linux/lib,extras/CUPTI/lib64,lib64}"
        );
    }

    #[test]
    fn the_variables_each_search_reads() {
        assert_eq!(PTXAS.env_vars(), ["PTXAS", "CUDA_PATH", "PATH"]);
        assert_eq!(NVCC.env_vars(), ["NVCC", "CUDA_PATH", "PATH"]);
        assert_eq!(
            NVDISASM.env_vars(),
            ["NVDISASM", "PTXAS", "CUDA_PATH", "PATH"]
        );
        assert!(CUBLAS.env_vars().is_empty());
        assert_eq!(CUPTI.env_vars(), ["CUDA_PATH", "CUDA_HOME"]);
    }
}
