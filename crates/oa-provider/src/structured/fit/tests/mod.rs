//! Tests of fitting that read its private parts: cases per construct, the table against oa-testkit's scripted
//! vendors (written apart from it), and the corpus of LLM-shaped schemas against the table.

mod agreement;
mod cases;
mod corpus;

use oa_testkit::vendor::Vendor;

use crate::model::Mapping;

/// The scripted vendor of a mapping.
pub(super) fn vendor(mapping: Mapping) -> Vendor {
    match mapping {
        Mapping::OpenAi => Vendor::OpenAi,
        Mapping::Anthropic => Vendor::Anthropic,
        Mapping::Gemini => Vendor::Gemini,
    }
}
