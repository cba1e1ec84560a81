//! The meta-schemas of every draft, bundled so that checking a schema and resolving `$schema` never needs a network.
//!
//! They are json-schema.org's own documents, as its site serves them (the json-schema-spec branches `draft-04`,
//! `draft-06`, `draft-07`, `2019-09` and `2020-12`), unchanged.

mod flat;

pub(crate) use flat::flat_2020_12;

use crate::draft::Draft;
use serde_json::Value;
use std::sync::OnceLock;

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
    (
        "http://json-schema.org/draft-04/schema",
        include_str!("draft-04.json"),
    ),
    (
        "http://json-schema.org/draft-06/schema",
        include_str!("draft-06.json"),
    ),
    (
        "http://json-schema.org/draft-07/schema",
        include_str!("draft-07.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        include_str!("draft2019-09/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/core",
        include_str!("draft2019-09/core.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/applicator",
        include_str!("draft2019-09/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/validation",
        include_str!("draft2019-09/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/meta-data",
        include_str!("draft2019-09/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/format",
        include_str!("draft2019-09/format.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/content",
        include_str!("draft2019-09/content.json"),
    ),
];

/// The bundled meta-schemas, parsed once; they are constants, so sharing them across compilations is safe.
fn bundled_values() -> &'static [(String, Value)] {
    static VALUES: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    VALUES.get_or_init(|| {
        BUNDLED
            .iter()
            .filter_map(|(uri, text)| {
                serde_json::from_str(text)
                    .ok()
                    .map(|value| ((*uri).to_owned(), value))
            })
            .collect()
    })
}

/// The bundled meta-schema document for a URI, if bundled. A draft's meta-schema is found over http and https
/// alike (the suite and real schemas write both).
pub(crate) fn bundled_value(uri: &str) -> Option<&'static Value> {
    let canonical = Draft::from_uri(uri).map(Draft::meta_schema_uri);
    let uri = canonical.unwrap_or(uri);
    bundled_values()
        .iter()
        .find(|(known, _)| known == uri)
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_document_parses_and_names_itself() {
        for (uri, text) in BUNDLED {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let id = value.get("$id").or_else(|| value.get("id")).unwrap();
            let id = id.as_str().unwrap();
            assert_eq!(id.strip_suffix('#').unwrap_or(id), *uri, "{uri}");
        }
    }
}
