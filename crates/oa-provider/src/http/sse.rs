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
/// use oa_provider::fuzzing::sse::SseDecoder;
///
/// let mut decoder = SseDecoder::new(1024);
/// let mut events = Vec::new();
/// decoder.push(b"data: hel", &mut events)?;
/// decoder.push(b"lo\r\n\r\n", &mut events)?;
/// decoder.finish(&mut events)?;
/// assert_eq!(events[0].data, "hello");
/// # Ok::<(), oa_provider::fuzzing::sse::SseError>(())
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

/// Where the first LF or CR in `bytes` is. Eight bytes at a time (a line of a completion stream is usually some
/// hundreds of bytes), then byte by byte from the first word holding one.
fn line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero exactly when some byte of `word` equals `byte` (the borrow trick: exact as a yes/no answer).
    let holds = |word: u64, byte: u8| {
        let diff = word ^ (ONES * u64::from(byte));
        diff.wrapping_sub(ONES) & !diff & HIGHS
    };
    let mut start = 0;
    for word in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let word = u64::from_le_bytes(word);
        if holds(word, b'\n') | holds(word, b'\r') != 0 {
            break;
        }
        start += 8;
    }
    bytes[start..]
        .iter()
        .position(|byte| *byte == b'\n' || *byte == b'\r')
        .map(|offset| start + offset)
}

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
            match line_end(rest) {
                Some(end) => {
                    let after_cr = rest[end] == b'\r';
                    if self.line.is_empty() {
                        // The whole line is in this chunk: read it in place, without copying it into `line`.
                        if end > self.max_line_bytes.saturating_add(BOM.len()) {
                            return Err(SseError::LineTooLong {
                                limit: self.max_line_bytes,
                            });
                        }
                        self.read_line(&rest[..end], events)?;
                    } else {
                        self.extend_line(&rest[..end])?;
                        self.end_line(events)?;
                    }
                    self.after_cr = after_cr;
                    rest = &rest[end + 1..];
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
        let mut line = std::mem::take(&mut self.line);
        let read = self.read_line(&line, events);
        // Reuse the line's allocation for the next line.
        line.clear();
        self.line = line;
        read
    }

    /// Interprets one complete line (without its end-of-line bytes).
    fn read_line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.line_number += 1;
        let mut line = line;
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix(BOM) {
                line = rest;
            }
        }
        if line.len() > self.max_line_bytes {
            return Err(SseError::LineTooLong {
                limit: self.max_line_bytes,
            });
        }
        let text = std::str::from_utf8(line).map_err(|_| SseError::InvalidUtf8 {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|byte| *byte == b'\n' || *byte == b'\r')
    }

    #[test]
    fn line_end_finds_the_first_terminator_wherever_it_lies() {
        // Fillers next to the terminators in value, so a word-at-a-time test that confused them would show:
        // 0x0b/0x0c/0x0e/0x09, their high-bit twins, 0x8a and 0x8d, 0x00, 0xff.
        let fillers = [b'a', 0x09, 0x0b, 0x0c, 0x0e, 0x8a, 0x8d, 0x89, 0x00, 0xff, 0x80];
        for len in 0..40 {
            for &filler in &fillers {
                let plain = vec![filler; len];
                assert_eq!(line_end(&plain), naive(&plain), "{len} {filler:#x}");
                for at in 0..len {
                    for terminator in [b'\n', b'\r'] {
                        let mut bytes = plain.clone();
                        bytes[at] = terminator;
                        assert_eq!(line_end(&bytes), Some(at));
                        // A second terminator later never wins over the first.
                        if at + 3 < len {
                            bytes[at + 3] = b'\n';
                            assert_eq!(line_end(&bytes), Some(at));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn line_end_agrees_with_a_byte_scan_on_every_byte_value() {
        for byte in 0..=u8::MAX {
            for at in 0..17 {
                let mut bytes = vec![b'x'; 17];
                bytes[at] = byte;
                assert_eq!(line_end(&bytes), naive(&bytes), "{byte:#x} at {at}");
            }
        }
    }
}
