//! Laws as properties: the SSE decoder yields the same events for every split of the same bytes and never
//! panics; request serialization is deterministic; display texts are pinned; public handles are Send + Sync.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_provider::Category;
use oa_provider::fuzzing::sse::{SseDecoder, SseError, SseEvent};
use oa_provider::json::canonical_json;
use proptest::prelude::*;
use serde_json::{Value, json};

fn decode(pieces: &[&[u8]], cap: usize) -> Result<Vec<SseEvent>, SseError> {
    let mut decoder = SseDecoder::new(cap);
    let mut events = Vec::new();
    for piece in pieces {
        decoder.push(piece, &mut events)?;
    }
    decoder.finish(&mut events)?;
    Ok(events)
}

/// SSE-ish text: data/event/comment lines with mixed terminators and multi-byte characters.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        "[a-zé🎉 {}\":,]{0,12}".prop_map(|text| format!("data: {text}")),
        "[a-z]{0,6}".prop_map(|text| format!("event:{text}")),
        "[a-z ]{0,6}".prop_map(|text| format!(":{text}")),
        Just(String::new()),
        Just("data".to_owned()),
    ];
    let terminator = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    proptest::collection::vec((line, terminator), 0..24).prop_map(|lines| {
        lines
            .into_iter()
            .flat_map(|(line, end)| format!("{line}{end}").into_bytes())
            .collect()
    })
}

proptest! {
    #[test]
    fn every_split_gives_the_same_events(bytes in sse_stream(), cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        let whole = decode(&[&bytes], 1 << 16);
        let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        offsets.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for offset in offsets {
            pieces.push(&bytes[start..offset]);
            start = offset;
        }
        pieces.push(&bytes[start..]);
        prop_assert_eq!(decode(&pieces, 1 << 16), whole);
    }

    #[test]
    fn byte_at_a_time_equals_whole(bytes in sse_stream()) {
        let pieces: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(decode(&pieces, 1 << 16), decode(&[&bytes], 1 << 16));
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_respect_the_cap(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(events) = decode(&[&bytes], 64) {
            prop_assert!(events.iter().all(|event| event.data.len() <= 64));
        }
    }

    #[test]
    fn canonical_json_is_independent_of_insertion_order(entries in proptest::collection::btree_map("[a-z]{1,6}", any::<i64>(), 0..12)) {
        let forward: serde_json::Map<String, Value> = entries.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let backward: serde_json::Map<String, Value> = entries.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect();
        let forward = json!({"outer": Value::Object(forward), "list": [1, 2]});
        let backward = json!({"list": [1, 2], "outer": Value::Object(backward)});
        prop_assert_eq!(canonical_json(&forward), canonical_json(&backward));
        let reparsed: Value = serde_json::from_str(&canonical_json(&forward)).unwrap();
        prop_assert!(oa_provider::json::json_equal(&reparsed, &forward));
    }
}

#[test]
fn sse_decoder_handles_the_documented_cases() {
    let events = decode(
        &[b"\xEF\xBB\xBFdata: a\r\ndata:b\r\n\r\n: comment\n\nevent: x\ndata\n\ndata: tail"],
        1024,
    )
    .unwrap();
    assert_eq!(
        events,
        [
            SseEvent {
                event: None,
                data: "a\nb".into()
            },
            SseEvent {
                event: Some("x".into()),
                data: String::new()
            },
            SseEvent {
                event: None,
                data: "tail".into()
            },
        ]
    );
    assert_eq!(
        decode(&[b"data: \xF0\x9F"], 1024).unwrap_err(),
        SseError::InvalidUtf8 { line_number: 1 }
    );
    assert_eq!(
        decode(&[b"data: abcdef\n\n"], 8).unwrap_err(),
        SseError::LineTooLong { limit: 8 }
    );
    // A UTF-8 sequence split across chunks is fine.
    assert_eq!(
        decode(&[b"data: \xF0\x9F", b"\x8E\x89\n\n"], 1024).unwrap()[0].data,
        "🎉"
    );
}

#[test]
fn category_strings_are_the_spec_names() {
    let names: Vec<&str> = Category::ALL.iter().map(|category| category.as_str()).collect();
    assert_eq!(
        names,
        [
            "provider_authentication",
            "provider_unavailable",
            "provider_invalid_model",
            "provider_model_not_loaded",
            "provider_rate_limit",
            "provider_invalid_response",
            "provider_invalid_request",
            "provider_unsupported_content_block",
            "structured_output_invalid",
        ]
    );
    let transient: Vec<Category> = Category::ALL
        .into_iter()
        .filter(|category| category.is_transient())
        .collect();
    assert_eq!(
        transient,
        [
            Category::Unavailable,
            Category::ModelNotLoaded,
            Category::RateLimit
        ]
    );
    let error = oa_provider::ProviderError::invalid_request("duplicate tool name \"x\"");
    assert_eq!(
        error.to_string(),
        "provider_invalid_request: duplicate tool name \"x\""
    );
}

#[test]
fn public_handles_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<oa_provider::OpenAiProvider>();
    assert_send_sync::<oa_provider::CompletionRequest>();
    assert_send_sync::<oa_provider::ProviderError>();
    assert_send_sync::<oa_provider::Response>();
    assert_send_sync::<oa_provider::RetryConfig>();
    fn assert_future_send<F: std::future::Future + Send>(_: F) {}
    let provider = oa_provider::OpenAiProvider::builder("m")
        .no_api_key()
        .build()
        .unwrap();
    let request = oa_provider::CompletionRequest::default();
    assert_future_send(oa_provider::Provider::complete(&provider, &request));
}
