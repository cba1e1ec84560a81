//! A real Redis server for tests that share state across processes: Debian's `redis-server`, started on a free
//! port of 127.0.0.1 with persistence off, stopped when dropped. CI installs the package (`.ci/run`); elsewhere a
//! missing binary is said loudly, and under `CI=true` it is a failure.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

impl RedisServer {
    /// Starts one, or says why not: `None` with a loud message on stderr when `redis-server` cannot start (a
    /// panic under `CI=true`, where `.ci/run` installs it). `test` names the caller in the message.
    ///
    /// # Panics
    ///
    /// Under `CI=true` when the server cannot start.
    pub fn start(test: &str) -> Option<Self> {
        match Self::try_start() {
            Ok(server) => Some(server),
            Err(why) => {
                let message =
                    format!("redis-server could not start ({why}), so {test} did NOT run its Redis part");
                assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
                eprintln!("\n!!!!! SKIPPED: {message}\n");
                None
            }
        }
    }

    fn try_start() -> Result<Self, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|error| error.to_string())?
            .port();
        let child = Command::new("redis-server")
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--dir", &std::env::temp_dir().to_string_lossy()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("redis-server: {error}"))?;
        let mut server = Self {
            child: Some(child),
            port,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if server.ping() {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        server.stop();
        Err("it did not answer PING within 10 s".to_owned())
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Whether the server answers `PING` now.
    pub fn ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut answer = [0_u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut answer).is_ok()
            && &answer == b"+PONG\r\n"
    }

    /// Stops the server (and waits for it); the port then refuses connections.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
