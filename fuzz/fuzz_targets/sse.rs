//! Fuzz target: the Server-Sent Events decoder (`oa_provider::fuzzing::sse`). After one flags byte (bit 0: a 32-byte line
//! cap instead of 1 MiB; the rest seeds the cuts) the input is the stream. Pushed in one piece, byte by byte and
//! cut at random, it must give the same events and the same error; a stream without error must give the events a
//! plain reading of the WHATWG rules gives, and no event's data may pass the cap.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_provider::fuzzing::sse::{SseDecoder, SseError, SseEvent};

/// Decodes `pieces` in order, stopping at the first error as the exchange does.
fn decode<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, cap: usize) -> (Vec<SseEvent>, Option<SseError>) {
    let mut decoder = SseDecoder::new(cap);
    let mut events = Vec::new();
    for piece in pieces {
        if let Err(error) = decoder.push(piece, &mut events) {
            return (events, Some(error));
        }
    }
    let error = decoder.finish(&mut events).err();
    (events, error)
}

/// The rules read plainly over the whole text: a leading BOM dropped, lines ended by CRLF, LF or CR, a blank line
/// dispatches, `:` starts a comment, one space after the colon dropped, data lines joined with `\n`, and the
/// event pending at the end dispatched.
fn reference(text: &str) -> Vec<SseEvent> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut events = Vec::new();
    let (mut data, mut has_data, mut event) = (String::new(), false, None);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // The text after the last terminator is a line only when it is not empty.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines.push("");
    for line in lines {
        if line.is_empty() {
            if has_data {
                events.push(SseEvent {
                    event: event.take(),
                    data: std::mem::take(&mut data),
                });
            }
            has_data = false;
            event = None;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if has_data {
                    data.push('\n');
                }
                data.push_str(value);
                has_data = true;
            }
            "event" => event = Some(value.to_owned()),
            _ => {}
        }
    }
    events
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, stream)) = data.split_first() else {
        return;
    };
    let cap = if flags & 1 == 1 { 32 } else { 1 << 20 };
    let whole = decode([stream], cap);
    let bytewise = decode(stream.chunks(1), cap);
    let random = decode(oa_fuzz::wire::cut(stream, flags >> 1), cap);
    assert_eq!(whole, bytewise, "byte by byte differs from one push");
    assert_eq!(whole, random, "random cuts differ from one push");
    let (events, error) = whole;
    for event in &events {
        assert!(event.data.len() <= cap, "an event's data passed the cap");
    }
    if error.is_none() {
        let text = std::str::from_utf8(stream).expect("a stream decoded without error is UTF-8");
        assert_eq!(
            events,
            reference(text),
            "the decoder and the plain reading differ"
        );
    }
});
