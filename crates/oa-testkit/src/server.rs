//! The loopback server: binds 127.0.0.1 on a free port, captures every request, and answers each from its
//! responder (a script, a function, or a relay), on the caller's tokio runtime or on a runtime thread of its own.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use crate::http::{Request, read_request};
use crate::relay;
use crate::reply::Reply;

/// Replies served in order, fixed replies for some paths, and the reply once the script has run out.
///
/// ```
/// use oa_testkit::{Reply, Script};
/// use serde_json::json;
///
/// let script = Script::new(vec![Reply::json(200, json!({"id": "x"}))])
///     .with_route("/v1/models", Reply::json(200, json!({"object": "list"})))
///     .with_default(Reply::json(599, json!({"error": {"message": "nothing left"}})));
/// # let _ = script;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    replies: VecDeque<Reply>,
    routes: Vec<(String, Reply)>,
    default: Reply,
}

impl Script {
    /// These replies in order; past the end, a 500 JSON error.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            replies: replies.into_iter().collect(),
            routes: Vec::new(),
            default: Reply::json(500, json!({"error": {"message": "oa-testkit: no reply left"}})),
        }
    }

    /// Every request to `path` (query ignored) gets `reply`, consuming nothing from the script.
    pub fn with_route(mut self, path: impl Into<String>, reply: Reply) -> Self {
        self.routes.push((path.into(), reply));
        self
    }

    /// The reply for every request after the script has run out.
    pub fn with_default(mut self, reply: Reply) -> Self {
        self.default = reply;
        self
    }
}

impl From<Vec<Reply>> for Script {
    fn from(replies: Vec<Reply>) -> Self {
        Self::new(replies)
    }
}

/// A reply chosen from the request itself.
pub type ReplyFn = Box<dyn Fn(&Request) -> Reply + Send + Sync>;

/// How the server answers.
///
/// ```
/// use oa_testkit::{Reply, Responder};
/// use serde_json::json;
///
/// let echo_path = Responder::function(|request| Reply::json(200, json!({"path": request.path})));
/// let gateway = Responder::Relay("http://127.0.0.1:8080/v1".into());
/// # let _ = (echo_path, gateway);
/// ```
pub enum Responder {
    /// A script of replies.
    Script(Script),
    /// A function of the request.
    Function(ReplyFn),
    /// A gateway in front of this upstream base URL (`http://HOST:PORT/PREFIX`, plain http): each request is
    /// forwarded with `response_format` deleted from its JSON body, as a gateway whose API model predates structured
    /// output does, and the upstream's reply comes back verbatim (with `connection: close`).
    Relay(String),
}

impl Responder {
    /// A responder that calls `reply` for every request.
    pub fn function(reply: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        Self::Function(Box::new(reply))
    }
}

impl fmt::Debug for Responder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Script(script) => f.debug_tuple("Script").field(script).finish(),
            Self::Function(_) => f.write_str("Function(..)"),
            Self::Relay(upstream) => f.debug_tuple("Relay").field(upstream).finish(),
        }
    }
}

impl From<Vec<Reply>> for Responder {
    fn from(replies: Vec<Reply>) -> Self {
        Self::Script(Script::new(replies))
    }
}

impl From<Script> for Responder {
    fn from(script: Script) -> Self {
        Self::Script(script)
    }
}

enum Handler {
    Script(Mutex<ScriptState>),
    Function(ReplyFn),
    Relay { upstream: String },
}

struct ScriptState {
    script: Script,
    n_defaulted: usize,
}

struct Shared {
    handler: Handler,
    captured: Mutex<Vec<Request>>,
    n_stripped: AtomicUsize,
}

impl Shared {
    /// The reply for a request that is not relayed.
    fn reply(&self, request: &Request) -> Reply {
        match &self.handler {
            Handler::Function(reply) => reply(request),
            Handler::Script(state) => {
                let mut state = lock(state);
                let path = request.path.split('?').next().unwrap_or_default();
                let route = state.script.routes.iter().find(|(route, _)| route == path);
                if let Some((_, reply)) = route {
                    return reply.clone();
                }
                match state.script.replies.pop_front() {
                    Some(reply) => reply,
                    None => {
                        state.n_defaulted += 1;
                        state.script.default.clone()
                    }
                }
            }
            Handler::Relay { .. } => Reply::Drop,
        }
    }
}

enum Running {
    /// The accept loop is a task on the caller's runtime.
    Task(JoinHandle<()>),
    /// The accept loop runs on a runtime thread of its own, stopped through `stop`.
    Thread {
        stop: Option<oneshot::Sender<()>>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
}

/// A running loopback server on 127.0.0.1; dropping it stops it and closes every connection it holds.
///
/// ```
/// use oa_testkit::{Reply, Server};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let server = Server::start(vec![Reply::json(200, json!({"ok": true}))]).await?;
/// let address = server.address();
/// let request = "POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}";
/// let response = oa_testkit::exchange(address, request.as_bytes()).await?;
/// assert!(response.starts_with(b"HTTP/1.1 200 OK\r\n"));
/// assert_eq!(server.requests()[0].path, "/v1/chat/completions");
/// assert_eq!(server.n_requests(), 1);
/// assert!(server.base_url().ends_with("/v1"));
/// # Ok(())
/// # }
/// ```
pub struct Server {
    address: SocketAddr,
    prefix: String,
    shared: Arc<Shared>,
    running: Running,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("base_url", &self.base_url())
            .field("n_requests", &self.n_requests())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts a server whose accept loop is a task on the current tokio runtime (call it inside one).
    ///
    /// # Errors
    ///
    /// The bind error, or a relay upstream that is not a plain `http://` URL.
    pub async fn start(responder: impl Into<Responder>) -> io::Result<Self> {
        let (listener, address, prefix, shared) = bind(responder.into())?;
        let listener = TcpListener::from_std(listener)?;
        let task = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Ok(Self {
            address,
            prefix,
            shared,
            running: Running::Task(task),
        })
    }

    /// Starts a server on a runtime thread of its own, for tests with no runtime (say, ones running the built
    /// binary) and for callers whose runtime runs only now and then.
    ///
    /// # Errors
    ///
    /// The bind or runtime error, or a relay upstream that is not a plain `http://` URL.
    pub fn start_blocking(responder: impl Into<Responder>) -> io::Result<Self> {
        let (listener, address, prefix, shared) = bind(responder.into())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let (stop, stopped) = oneshot::channel();
        let loop_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("oa-testkit".into())
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        () = accept_loop(listener, loop_shared) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(Self {
            address,
            prefix,
            shared,
            running: Running::Thread {
                stop: Some(stop),
                thread: Some(thread),
            },
        })
    }

    /// The socket address the server listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The base URL clients use: `http://127.0.0.1:PORT/v1`, or for a relay the upstream's path prefix.
    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.address, self.prefix)
    }

    /// Every request received so far, in arrival order (those refused 431 or 413 excepted).
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.captured).clone()
    }

    /// How many requests were received (and captured) so far.
    pub fn n_requests(&self) -> usize {
        lock(&self.shared.captured).len()
    }

    /// How many scripted replies are still unserved (0 for a function or a relay).
    pub fn n_unconsumed(&self) -> usize {
        match &self.shared.handler {
            Handler::Script(state) => lock(state).script.replies.len(),
            _ => 0,
        }
    }

    /// How many requests arrived after the script ran out and got its default reply.
    pub fn n_defaulted(&self) -> usize {
        match &self.shared.handler {
            Handler::Script(state) => lock(state).n_defaulted,
            _ => 0,
        }
    }

    /// For a relay: how many forwarded requests had a `response_format` it deleted.
    pub fn n_stripped(&self) -> usize {
        self.shared.n_stripped.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        match &mut self.running {
            Running::Task(task) => task.abort(),
            Running::Thread { stop, thread } => {
                if let Some(stop) = stop.take() {
                    let _ = stop.send(());
                }
                if let Some(thread) = thread.take() {
                    let _ = thread.join();
                }
            }
        }
    }
}

type Bound = (std::net::TcpListener, SocketAddr, String, Arc<Shared>);

fn bind(responder: Responder) -> io::Result<Bound> {
    let (handler, prefix) = match responder {
        Responder::Script(script) => (
            Handler::Script(Mutex::new(ScriptState {
                script,
                n_defaulted: 0,
            })),
            "/v1".to_owned(),
        ),
        Responder::Function(reply) => (Handler::Function(reply), "/v1".to_owned()),
        Responder::Relay(base_url) => {
            let (upstream, prefix) = relay::split_base_url(&base_url)?;
            (Handler::Relay { upstream }, prefix)
        }
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    let shared = Arc::new(Shared {
        handler,
        captured: Mutex::new(Vec::new()),
        n_stripped: AtomicUsize::new(0),
    });
    Ok((listener, address, prefix, shared))
}

/// Accepts until the listener fails or the loop is dropped; dropping it aborts every connection task.
async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut connections = JoinSet::new();
    while let Ok((socket, _)) = listener.accept().await {
        while connections.try_join_next().is_some() {}
        connections.spawn(serve(socket, Arc::clone(&shared)));
    }
}

async fn serve(mut socket: TcpStream, shared: Arc<Shared>) {
    let Ok(Some(request)) = read_request(&mut socket).await else {
        return;
    };
    lock(&shared.captured).push(request.clone());
    if let Handler::Relay { upstream } = &shared.handler {
        // An upstream that fails closes the client's connection unanswered, as a broken gateway would.
        let _ = relay::forward(socket, upstream, request, &shared.n_stripped).await;
    } else {
        shared.reply(&request).send(socket).await;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
