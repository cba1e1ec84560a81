//! The draft 2020-12 meta-schemas, bundled so that checking a schema and resolving `$schema` never needs a network.

mod flat;

pub(crate) use flat::flat_2020_12;

/// The URI of the draft 2020-12 meta-schema, the dialect a schema without `$schema` is read as.
pub(crate) const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Every bundled document: its URI and its text. They are parsed when a compilation first refers to one.
pub(crate) const BUNDLED: &[(&str, &str)] = &[
    (DRAFT_2020_12, include_str!("schema.json")),
    (
        "https://json-schema.org/draft/2020-12/meta/core",
        include_str!("core.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/applicator",
        include_str!("applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        include_str!("unevaluated.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/validation",
        include_str!("validation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        include_str!("meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        include_str!("format-annotation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-assertion",
        include_str!("format-assertion.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/content",
        include_str!("content.json"),
    ),
];

/// Meta-schema URIs of dialects we know of but do not implement yet: a schema declaring one gets a clear error.
pub(crate) const KNOWN_OTHER_DIALECTS: &[&str] = &[
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-03/schema",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_document_parses_and_names_itself() {
        for (uri, text) in BUNDLED {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(value["$id"], *uri, "{uri}");
        }
    }
}
