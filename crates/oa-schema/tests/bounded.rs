//! Bounded memory on the incremental route without the value (`Incremental::without_value`): a 50 MB array of
//! small objects, generated and fed in 64 KiB chunks (never held whole), is judged while the heap this process holds
//! stays under a fixed bound, far below the document; the same route keeping the value grows with the document.
//! The figures are heap bytes from a counting global allocator (`peak_alloc`, as `tests/memory.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use oa_schema::{IncrementalError, Validator, ViolationKind};
use peak_alloc::PeakAlloc;
use serde_json::json;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// The heap is one counter for the process: the tests measure one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The document's size.
const DOCUMENT_BYTES: usize = 50 << 20;

/// The most heap the run may add while it reads the document (the bound below is a few times what it needs: a
/// chunk, the open containers, one item and the report).
const HEAP_BOUND: usize = 1 << 20;

fn validator() -> Validator {
    Validator::new(&json!({
        "$defs": {
            "row": {
                "type": "object",
                "properties": {
                    "id": { "type": "integer", "minimum": 0 },
                    "name": { "type": "string", "maxLength": 32 },
                    "tags": { "type": "array", "items": { "enum": ["a", "b", "c"] }, "maxItems": 4 },
                    "ok": { "type": "boolean" },
                    "score": { "type": "number" }
                },
                "required": ["id", "name"],
                "additionalProperties": false
            }
        },
        "type": "object",
        "properties": { "rows": { "type": "array", "items": { "$ref": "#/$defs/row" } } },
        "required": ["rows"]
    }))
    .unwrap()
}

/// Row `index` of the document: valid, except row 7 (a tag not allowed) and the last (no name).
fn row(index: usize, last: bool) -> String {
    if last {
        return format!(r#"{{"id": {index}, "ok": false}}"#);
    }
    let tag = if index == 7 { "z" } else { "b" };
    format!(
        r#"{{"id": {index}, "name": "row number {index}", "tags": ["a", "{tag}"], "ok": true, "score": 1.5}}"#
    )
}

/// Feeds a generated document of at least `bytes` bytes in 64 KiB chunks; the rows fed and the outcome.
fn feed(mut run: oa_schema::Incremental, bytes: usize) -> (usize, Result<(), IncrementalError>) {
    let mut buffer = String::from("{\"rows\": [");
    let mut sent = 0;
    let mut index = 0;
    loop {
        let last = sent + buffer.len() >= bytes;
        if index > 0 {
            buffer.push_str(",\n");
        }
        buffer.push_str(&row(index, last));
        index += 1;
        if last {
            buffer.push_str("]}");
        }
        if buffer.len() >= 64 << 10 || last {
            sent += buffer.len();
            if let Err(err) = run.feed(buffer.as_bytes()) {
                return (index, Err(err));
            }
            buffer.clear();
        }
        if last {
            return (index, run.finish());
        }
    }
}

#[test]
fn a_50_mb_document_is_judged_in_bounded_memory_without_the_value() {
    let _serial = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let validator = validator();
    let run = validator.incremental().without_value();
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let (rows, outcome) = feed(run, DOCUMENT_BYTES);
    let added = HEAP.peak_usage().saturating_sub(before);
    eprintln!("{rows} rows, {DOCUMENT_BYTES} bytes: peak heap added {added} bytes");
    assert!(
        added < HEAP_BOUND,
        "peak heap added {added} bytes, bound {HEAP_BOUND}"
    );
    // The report is still every violation, at its place.
    let Err(IncrementalError::Invalid(report)) = outcome else {
        panic!("invalid: {outcome:?}")
    };
    let found: Vec<(String, ViolationKind)> = report
        .iter()
        .map(|violation| (violation.instance_location().to_string(), violation.kind()))
        .collect();
    assert_eq!(
        found,
        [
            ("/rows/7/tags/1".to_owned(), ViolationKind::Enum),
            (format!("/rows/{}/name", rows - 1), ViolationKind::Required)
        ]
    );
}

/// The measure sees a document kept: the same route keeping the value holds more than the document's size.
#[test]
fn keeping_the_value_grows_with_the_document() {
    let _serial = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let validator = validator();
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let bytes = 4 << 20;
    let (_, outcome) = feed(validator.incremental(), bytes);
    let added = HEAP.peak_usage().saturating_sub(before);
    eprintln!("keeping the value, {bytes} bytes: peak heap added {added} bytes");
    assert!(added > bytes, "peak heap added {added} bytes");
    assert!(matches!(outcome, Err(IncrementalError::Invalid(_))));
}
