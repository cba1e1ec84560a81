//! The loopback server: binds 127.0.0.1 on a free port, runs on a tokio runtime thread of its own (so async tests,
//! blocking tests and product code use it alike), captures every request, and answers each from its responder.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::json;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::http::{Request, read_request};
use crate::relay;
use crate::reply::{Reply, StreamEnd};

/// Replies served in order, fixed replies for some paths, and the reply once the script has run out.
///
/// ```
/// use oa_testkit::{Reply, Script};
/// use serde_json::json;
///
/// let mut script = Script::new(vec![Reply::json(200, json!({"id": "x"}))]);
/// script.routes.push(("/v1/models".into(), Reply::json(200, json!({"object": "list"}))));
/// script.default = Reply::json(599, json!({"error": {"message": "nothing left"}}));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// Served in order, one per request.
    pub replies: VecDeque<Reply>,
    /// Every request to one of these paths (query ignored) gets its reply, consuming nothing from `replies`.
    pub routes: Vec<(String, Reply)>,
    /// The reply for every request after `replies` have run out; [`Script::new`] sets a 500 JSON error.
    pub default: Reply,
}

impl Script {
    /// These replies in order; past the end, a 500 JSON error.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        let default = Reply::json(500, json!({"error": {"message": "oa-testkit: no reply left"}}));
        Self {
            replies: replies.into_iter().collect(),
            routes: Vec::new(),
            default,
        }
    }
}

/// How the server answers.
///
/// ```
/// use oa_testkit::{Reply, Responder};
///
/// let echo_path = Responder::function(|request| Reply::json(200, request.path.clone().into()));
/// let gateway = Responder::Relay("http://127.0.0.1:8080/v1".into());
/// # let _ = (echo_path, gateway);
/// ```
pub enum Responder {
    /// A script of replies.
    Script(Script),
    /// A function of the request.
    Function(Box<dyn Fn(&Request) -> Reply + Send + Sync>),
    /// A gateway in front of this upstream base URL (`http://HOST:PORT/PREFIX`, plain http): each request is
    /// forwarded with `response_format` deleted from its JSON body, as a gateway whose API model predates structured
    /// output does, and with `connection: close`; the upstream's reply streams back verbatim as it arrives.
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

#[derive(Debug, Default)]
struct State {
    requests: Vec<Request>,
    n_requests: usize,
    n_defaulted: usize,
    n_stripped: usize,
    stream_ends: Vec<StreamEnd>,
}

#[derive(Debug)]
struct Shared {
    responder: Mutex<Responder>,
    /// A relay's upstream, `HOST:PORT`.
    upstream: String,
    /// Whether requests are kept for [`Server::requests`], or only counted.
    capture: bool,
    state: Mutex<State>,
}

/// The listen backlog: a load test's thousand simultaneous connects wait in the queue instead of retrying their
/// SYN a second later.
const BACKLOG: u32 = 1024;

/// A running loopback server on 127.0.0.1; dropping it stops it and closes every connection it holds.
///
/// ```
/// use oa_testkit::{Reply, Server};
///
/// let server = Server::start(vec![Reply::json(200, serde_json::json!({"ok": true}))])?;
/// let request = b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}";
/// let response = oa_testkit::exchange(server.address(), request)?;
/// assert!(response.starts_with(b"HTTP/1.1 200 OK\r\n"));
/// assert_eq!(server.requests()[0].path, "/v1/chat/completions");
/// assert_eq!((server.n_requests(), server.n_unconsumed()), (1, 0));
/// assert!(server.base_url().ends_with("/v1"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Server {
    address: SocketAddr,
    prefix: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Binds 127.0.0.1 on a free port and serves on a runtime thread of its own until dropped.
    ///
    /// # Errors
    ///
    /// The bind, runtime or thread error, or a relay upstream that is not a plain `http://` URL.
    pub fn start(responder: impl Into<Responder>) -> io::Result<Self> {
        Self::serve(responder.into(), true)
    }

    /// As [`start`](Self::start), but requests are counted, not kept: [`requests`](Self::requests) stays empty, so
    /// a soak or load test of many thousands of calls does not grow the server's memory.
    ///
    /// ```
    /// use oa_testkit::{Reply, Server};
    ///
    /// let server = Server::start_uncaptured(vec![Reply::Drop])?;
    /// let request = b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}";
    /// oa_testkit::exchange(server.address(), request)?;
    /// assert_eq!((server.n_requests(), server.requests().len()), (1, 0));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start).
    pub fn start_uncaptured(responder: impl Into<Responder>) -> io::Result<Self> {
        Self::serve(responder.into(), false)
    }

    fn serve(responder: Responder, capture: bool) -> io::Result<Self> {
        let (upstream, prefix) = match &responder {
            Responder::Relay(base_url) => relay::split_base_url(base_url)?,
            _ => (String::new(), "/v1".to_owned()),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            let socket = TcpSocket::new_v4()?;
            socket.bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
            socket.listen(BACKLOG)?
        };
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            responder: Mutex::new(responder),
            upstream,
            capture,
            state: Mutex::default(),
        });
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
            stop: Some(stop),
            thread: Some(thread),
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

    /// Every request received so far, in arrival order (those refused 431 or 413 excepted); empty for a server
    /// started [uncaptured](Self::start_uncaptured).
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.state).requests.clone()
    }

    /// How many requests were received (and captured, unless the server was started uncaptured) so far.
    pub fn n_requests(&self) -> usize {
        lock(&self.shared.state).n_requests
    }

    /// How many scripted replies are still unserved (0 for a function or a relay).
    pub fn n_unconsumed(&self) -> usize {
        match &*lock(&self.shared.responder) {
            Responder::Script(script) => script.replies.len(),
            _ => 0,
        }
    }

    /// How many requests arrived after the script ran out and got its default reply.
    pub fn n_defaulted(&self) -> usize {
        lock(&self.shared.state).n_defaulted
    }

    /// How each scripted event stream ([`Reply::Stream`]) served so far ended, in the order they ended: whether
    /// the client closed the connection before the last piece, and how many pieces it had been sent.
    ///
    /// ```
    /// use oa_testkit::{Reply, Server};
    /// use std::time::Duration;
    ///
    /// let pieces = vec![b"data: 1\n\n".to_vec(); 50];
    /// let server = Server::start(vec![Reply::Stream { pieces, pause: Duration::from_millis(20) }])?;
    /// let request = b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}";
    /// // A client that sends its request and hangs up at once.
    /// let mut socket = std::net::TcpStream::connect(server.address())?;
    /// std::io::Write::write_all(&mut socket, request)?;
    /// drop(socket);
    /// while server.stream_ends().is_empty() {
    ///     std::thread::sleep(Duration::from_millis(5));
    /// }
    /// let end = server.stream_ends()[0];
    /// assert!(end.client_closed && end.written < end.pieces);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn stream_ends(&self) -> Vec<StreamEnd> {
        lock(&self.shared.state).stream_ends.clone()
    }

    /// For a relay: how many forwarded requests had a `response_format` it deleted.
    pub fn n_stripped(&self) -> usize {
        lock(&self.shared.state).n_stripped
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
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
    let Ok(Some(mut request)) = read_request(&mut socket).await else {
        return;
    };
    match answer(&shared, &mut request) {
        Some(reply) => {
            if let Some(end) = reply.send(socket).await {
                lock(&shared.state).stream_ends.push(end);
            }
        }
        // An upstream that fails closes the client's connection unanswered, as a broken gateway would.
        None => drop(relay::forward(socket, &shared.upstream, &request).await),
    }
}

/// Captures the request and picks its reply; `None` for a relay, after deleting `response_format` from the body.
fn answer(shared: &Shared, request: &mut Request) -> Option<Reply> {
    let mut state = lock(&shared.state);
    state.n_requests += 1;
    if shared.capture {
        state.requests.push(request.clone());
    }
    match &mut *lock(&shared.responder) {
        Responder::Script(script) => {
            let path = request.path.split('?').next().unwrap_or_default();
            if let Some((_, reply)) = script.routes.iter().find(|(route, _)| route == path) {
                return Some(reply.clone());
            }
            Some(script.replies.pop_front().unwrap_or_else(|| {
                state.n_defaulted += 1;
                script.default.clone()
            }))
        }
        Responder::Function(reply) => Some(reply(request)),
        Responder::Relay(_) => {
            state.n_stripped += usize::from(relay::strip_response_format(&mut request.body));
            None
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
