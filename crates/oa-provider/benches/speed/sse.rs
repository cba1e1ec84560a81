//! SSE decoding throughput: oa's `SseDecoder` against eventsource-stream (the decoder async-openai and rig use) on
//! the same byte streams, already split into the same chunks; then each on a stream whose one line never ends, to
//! show which stays bounded.

use std::convert::Infallible;

use bytes::Bytes;
use criterion::{Criterion, Throughput};
use eventsource_stream::Eventsource;
use futures_util::{FutureExt, StreamExt};
use oa_provider::fuzzing::sse::SseDecoder;
use peak_alloc::PeakAlloc;

/// oa's default line cap (`max_sse_line_bytes`).
const LINE_CAP: usize = 1024 * 1024;
/// The unending line of the boundedness check.
const UNENDING_BYTES: usize = 32 * 1024 * 1024;

/// One byte stream, as chunks.
pub(crate) struct SseStream {
    pub(crate) name: &'static str,
    pub(crate) chunks: Vec<Bytes>,
    pub(crate) n_events: usize,
}

impl SseStream {
    pub(crate) fn n_bytes(&self) -> usize {
        self.chunks.iter().map(Bytes::len).sum()
    }
}

/// What the SSE part reports: the streams measured, and the peak heap of each decoder on the unending line with
/// whether it stopped.
#[derive(Debug)]
pub(crate) struct SseResults {
    pub(crate) streams: Vec<(&'static str, usize)>,
    pub(crate) oa_unending: (usize, String),
    pub(crate) eventsource_unending: (usize, String),
}

fn chunked(bytes: &[u8], size: usize) -> Vec<Bytes> {
    bytes.chunks(size).map(Bytes::copy_from_slice).collect()
}

pub(crate) fn streams() -> Vec<SseStream> {
    let small: String = (0..20_000)
        .map(|i| format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"tok{i} \"}}}}]}}\n\n"))
        .collect();
    let large = format!("data: {}\n\n", "x".repeat(LINE_CAP - 16));
    vec![
        SseStream {
            name: "many-small-events",
            chunks: chunked(small.as_bytes(), 1460),
            n_events: 20_000,
        },
        SseStream {
            name: "one-large-event",
            chunks: chunked(large.as_bytes(), 16 * 1024),
            n_events: 1,
        },
        SseStream {
            // 7-byte chunks: every boundary falls inside a line.
            name: "split-lines",
            chunks: chunked(small.as_bytes(), 7),
            n_events: 20_000,
        },
    ]
}

/// A decoder run: events and data bytes yielded from the chunks, or the error that stopped it.
type Decode = fn(&[Bytes]) -> Result<(usize, usize), String>;

/// Events and data bytes oa's decoder yields from `chunks`.
fn oa_decode(chunks: &[Bytes]) -> Result<(usize, usize), String> {
    let mut decoder = SseDecoder::new(LINE_CAP);
    let mut events = Vec::new();
    let (mut n_events, mut n_data) = (0, 0);
    for chunk in chunks {
        decoder
            .push(chunk, &mut events)
            .map_err(|error| error.to_string())?;
        n_events += events.len();
        n_data += events.drain(..).map(|event| event.data.len()).sum::<usize>();
    }
    decoder.finish(&mut events).map_err(|error| error.to_string())?;
    n_events += events.len();
    n_data += events.iter().map(|event| event.data.len()).sum::<usize>();
    Ok((n_events, n_data))
}

/// Events and data bytes eventsource-stream yields from `chunks` (the source is always ready, so every poll
/// completes at once).
fn eventsource_decode(chunks: &[Bytes]) -> Result<(usize, usize), String> {
    let mut events =
        futures_util::stream::iter(chunks.iter().cloned().map(Ok::<_, Infallible>)).eventsource();
    let (mut n_events, mut n_data) = (0, 0);
    while let Some(Some(event)) = events.next().now_or_never() {
        let event = event.map_err(|error| error.to_string())?;
        n_events += 1;
        n_data += event.data.len();
    }
    Ok((n_events, n_data))
}

pub(crate) fn bench(criterion: &mut Criterion, peak: &PeakAlloc) -> SseResults {
    let streams = streams();
    for stream in &streams {
        let oa = oa_decode(&stream.chunks);
        let eventsource = eventsource_decode(&stream.chunks);
        match (&oa, &eventsource) {
            (Ok(oa), Ok(eventsource)) if oa == eventsource && oa.0 == stream.n_events => {}
            _ => panic!(
                "SSE pre-check on {}: oa {oa:?}, eventsource-stream {eventsource:?}, expected {} events",
                stream.name, stream.n_events
            ),
        }
        let mut group = criterion.benchmark_group(format!("sse-{}", stream.name));
        group.throughput(Throughput::Bytes(stream.n_bytes() as u64));
        group.bench_function("oa", |bencher| bencher.iter(|| oa_decode(&stream.chunks)));
        group.bench_function("eventsource-stream", |bencher| {
            bencher.iter(|| eventsource_decode(&stream.chunks))
        });
        group.finish();
    }
    let unending = chunked(&vec![b'x'; UNENDING_BYTES], 64 * 1024);
    let peak_of = |decode: Decode| {
        let before = peak.current_usage();
        peak.reset_peak_usage();
        let outcome = match decode(&unending) {
            Ok((n_events, _)) => format!("consumed all {UNENDING_BYTES} bytes, {n_events} events"),
            Err(error) => format!("stopped: {error}"),
        };
        (peak.peak_usage().saturating_sub(before), outcome)
    };
    SseResults {
        streams: streams
            .iter()
            .map(|stream| (stream.name, stream.n_bytes()))
            .collect(),
        oa_unending: peak_of(oa_decode),
        eventsource_unending: peak_of(eventsource_decode),
    }
}
