//! A Server-Sent Events decoder that yields the same events however the bytes are split: inside a UTF-8
//! sequence, inside a line, between CR and LF. Lines are capped in length; invalid UTF-8 is a typed error.
//!
//! Follows the WHATWG event-stream rules we need: LF, CRLF or CR end a line; a blank line dispatches the event;
//! lines starting with `:` are comments; `data` lines of one event join with `\n`; one leading space after the
//! colon is dropped; a leading byte-order mark is ignored. Unlike a browser, an event still pending when the
//! stream ends is dispatched, since some servers omit the final blank line.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when the event had one.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Why a stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A line (or an event's accumulated data) passed the cap.
    #[error("sse line longer than {limit} bytes")]
    LineTooLong {
        /// The cap in bytes.
        limit: usize,
    },
    /// A line was not valid UTF-8.
    #[error("sse line {line_number} is not valid utf-8")]
    InvalidUtf8 {
        /// 1-based line number in the stream.
        line_number: u64,
    },
}

/// Incremental SSE decoder: feed chunks with [`push`](Self::push), then call [`finish`](Self::finish).
///
/// ```
/// use oa_provider::sse::SseDecoder;
///
/// let mut decoder = SseDecoder::new(1024);
/// let mut events = Vec::new();
/// decoder.push(b"data: hel", &mut events)?;
/// decoder.push(b"lo\r\n\r\n", &mut events)?;
/// decoder.finish(&mut events)?;
/// assert_eq!(events[0].data, "hello");
/// # Ok::<(), oa_provider::sse::SseError>(())
/// ```
#[derive(Debug)]
pub struct SseDecoder {
    /// Bytes of the line being read (no terminator).
    line: Vec<u8>,
    /// The last byte seen was CR, so an LF starting the next chunk belongs to the same terminator.
    after_cr: bool,
    /// Whether the BOM check at stream start is done.
    started: bool,
    /// Lines completed so far, for error messages.
    line_number: u64,
    /// Data of the event being built.
    data: String,
    /// Whether any `data` field arrived for the event being built.
    has_data: bool,
    /// The event's `event` field.
    event: Option<String>,
    /// Cap on one line and on one event's data, in bytes.
    max_line_bytes: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    /// A decoder that refuses lines (and event data) longer than `max_line_bytes`.
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            after_cr: false,
            started: false,
            line_number: 0,
            data: String::new(),
            has_data: false,
            event: None,
            max_line_bytes,
        }
    }

    /// Feeds the next chunk; appends the events it completed to `events`.
    ///
    /// # Errors
    ///
    /// [`SseError`] when a line passes the cap or is not UTF-8. Events completed before the bad line are still
    /// appended, so nothing that arrived intact is lost; the decoder should then be dropped.
    pub fn push(&mut self, chunk: &[u8], events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.after_cr && rest[0] == b'\n' {
                rest = &rest[1..];
                self.after_cr = false;
                continue;
            }
            self.after_cr = false;
            match rest.iter().position(|byte| *byte == b'\n' || *byte == b'\r') {
                Some(end) => {
                    self.extend_line(&rest[..end])?;
                    self.after_cr = rest[end] == b'\r';
                    rest = &rest[end + 1..];
                    self.end_line(events)?;
                }
                None => {
                    self.extend_line(rest)?;
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    /// Ends the stream: a final unterminated line is read and a pending event dispatched.
    ///
    /// # Errors
    ///
    /// As for [`push`](Self::push).
    pub fn finish(&mut self, events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if !self.line.is_empty() {
            self.end_line(events)?;
        }
        self.dispatch(events);
        Ok(())
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > self.max_line_bytes.saturating_add(BOM.len()) {
            return Err(SseError::LineTooLong {
                limit: self.max_line_bytes,
            });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.line_number += 1;
        let mut line = std::mem::take(&mut self.line);
        if !self.started {
            self.started = true;
            if line.starts_with(BOM) {
                line.drain(..BOM.len());
            }
        }
        if line.len() > self.max_line_bytes {
            return Err(SseError::LineTooLong {
                limit: self.max_line_bytes,
            });
        }
        let text = std::str::from_utf8(&line).map_err(|_| SseError::InvalidUtf8 {
            line_number: self.line_number,
        })?;
        if text.is_empty() {
            self.dispatch(events);
        } else if !text.starts_with(':') {
            let (field, value) = match text.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (text, ""),
            };
            match field {
                "data" => {
                    if self.data.len() + value.len() + 1 > self.max_line_bytes {
                        return Err(SseError::LineTooLong {
                            limit: self.max_line_bytes,
                        });
                    }
                    if self.has_data {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                    self.has_data = true;
                }
                "event" => self.event = Some(value.to_owned()),
                // `id` and `retry` steer browser reconnection, which a one-shot completion does not do.
                _ => {}
            }
        }
        // Reuse the line's allocation for the next line.
        line.clear();
        self.line = line;
        Ok(())
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        if self.has_data {
            events.push(SseEvent {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
            });
        }
        self.has_data = false;
        self.event = None;
    }
}
