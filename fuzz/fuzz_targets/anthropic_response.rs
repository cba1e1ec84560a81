//! Fuzz target: the Anthropic Messages response decoder on arbitrary bytes, for a call with declared tools and on
//! the tool-coercion path (the flags byte, see `oa_fuzz::wire`). Errors are typed and carry no echoed secret; what
//! decodes keeps `raw` verbatim, checks every tool call, reads the coerced call back as content, and totals its
//! usage without overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_provider::Mapping;

fuzz_target!(|data: &[u8]| oa_fuzz::wire::check(Mapping::Anthropic, data));
