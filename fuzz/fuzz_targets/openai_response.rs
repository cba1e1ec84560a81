//! Fuzz target: the OpenAI Chat Completions response decoders on arbitrary bytes, atomic bodies and event streams
//! (cut whole, byte by byte and at random, which must agree), after one flags byte (see `oa_fuzz::wire`). Errors
//! are typed and carry no echoed secret; what decodes keeps `raw` verbatim, checks every tool call, and reports as
//! deltas exactly the content and reasoning it assembles; an atomic body decodes the same through the typed view
//! as through the reference route (parsed into a `Value`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_provider::Mapping;

fuzz_target!(|data: &[u8]| oa_fuzz::wire::check(Mapping::OpenAi, data));
