//! Why a request failed, in words a person can act on, without the URL an HTTP client's own message repeats.

/// The I/O error under `error`, in its own words (`Connection refused (os error 111)`), when there is one.
pub(crate) fn io_cause(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = error.source();
    while let Some(inner) = source {
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            return Some(io.to_string());
        }
        source = inner.source();
    }
    None
}
