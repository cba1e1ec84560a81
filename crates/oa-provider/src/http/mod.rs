//! HTTP shared by every wire format: the bounded reqwest transport (redirects off, keys as sensitive headers,
//! idle gap and total deadline, size caps, scrubbed errors), the Server-Sent Events decoder, and Retry-After.

mod http_date;
mod retry_after;
pub mod sse;
mod transport;

pub use retry_after::{MAX_RETRY_AFTER, parse_retry_after, parse_retry_after_at};
pub(crate) use transport::{KeyHeader, Limits, Reply, Transport, build_headers};
