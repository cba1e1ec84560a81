//! Fuzz target: the Gemini `generateContent` response decoder on arbitrary bytes, after one flags byte (see
//! `oa_fuzz::wire`). Errors are typed and carry no echoed secret; what decodes keeps `raw` verbatim, checks every
//! tool call, and finishes `tool_calls` exactly when it has calls.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_provider::Mapping;

fuzz_target!(|data: &[u8]| oa_fuzz::wire::check(Mapping::Gemini, data));
