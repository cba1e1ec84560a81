//! Custom meta-schemas the tests hand to a validator.

use serde_json::{Value, json};

/// Where [`format_assertion_meta`] lives.
pub(crate) const FORMAT_ASSERTION_META: &str = "https://example.com/meta";

/// A 2020-12 meta-schema of the core and format-assertion vocabularies only, with `$id` [`FORMAT_ASSERTION_META`]:
/// a schema that names it has its `format` asserted.
pub(crate) fn format_assertion_meta() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": FORMAT_ASSERTION_META,
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "https://json-schema.org/draft/2020-12/vocab/format-assertion": true
        }
    })
}
