//! Keywords a schema most likely misspelled. Unknown keywords are legal (an annotation at most), so a misspelled
//! `requird` is silently ignored and the constraint it was meant to add never applies. This finds them, by a rule
//! narrow enough never to fire on a keyword meant as written:
//!
//! - only at schema positions (the root, and what the draft's applicators hold: `properties` values, `items`,
//!   `allOf` members, `$defs`/`definitions` entries, ...), never inside `properties` names, `enum`, `const`,
//!   `default`, `examples` or an unknown keyword's value;
//! - only a name exactly one edit (an insertion, a deletion, a substitution, or two neighbours swapped) from a
//!   keyword of the draft that governs that position (its own `$schema`, else the document's, else the default);
//! - never a name of the known vocabularies that extend JSON Schema (OpenAPI's `example`, `nullable`,
//!   `discriminator`, ...; editors' `markdownDescription`, ...; see [`CUSTOM`]), nor an `x-` extension.
//!
//! Each draft's keywords, and where their subschemas sit, are the compiler's own table (`dialect.rs`): draft 4
//! reads `id` where later drafts read `$id`, and `definitions` and `dependencies` hold schemas in every draft.

use std::fmt;

use oa_pointer::Location;
use serde_json::Value;

use crate::dialect::{self, Shape};
use crate::draft::Draft;

/// Keywords of the vocabularies that extend JSON Schema, meant as written wherever they appear: OpenAPI's, the
/// editors' (VS Code, IntelliJ), ajv's and the schema generators'. One edit from a keyword (`example`, `examples`)
/// is no sign of a typo for them.
pub(crate) const CUSTOM: &[&str] = &[
    "example",
    "nullable",
    "discriminator",
    "xml",
    "externalDocs",
    "markdownDescription",
    "markdownEnumDescriptions",
    "enumDescriptions",
    "defaultSnippets",
    "deprecationMessage",
    "errorMessage",
    "doNotSuggest",
    "suggestSortText",
    "allowComments",
    "allowTrailingCommas",
    "tsType",
    "patternErrorMessage",
    "instanceof",
    "typeof",
    "regexp",
];

/// A key at a schema position that is not a keyword of its draft but is one edit from one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misspelling {
    location: String,
    found: String,
    meant: &'static str,
    draft: Draft,
}

impl Misspelling {
    /// Where the schema object holding it is, as a URI fragment (`#/properties/name`).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The name as written.
    pub fn found(&self) -> &str {
        &self.found
    }

    /// The keyword one edit away.
    pub fn meant(&self) -> &'static str {
        self.meant
    }

    /// The draft that governs the position.
    pub fn draft(&self) -> Draft {
        self.draft
    }
}

impl fmt::Display for Misspelling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {:?} is not a keyword of draft {} and is ignored; did you mean {:?}?",
            self.location, self.found, self.draft, self.meant
        )
    }
}

/// Every likely misspelled keyword of `schema`, in document order, by the rule of this module; `default_draft` is
/// the draft of a document that declares no `$schema`.
///
/// ```
/// use oa_schema::{Draft, misspelled_keywords};
/// use serde_json::json;
///
/// let schema = json!({"properties": {"name": {"type": "string", "minLenght": 1}}, "requird": ["name"]});
/// let found: Vec<String> = misspelled_keywords(&schema, Draft::Draft202012).iter().map(ToString::to_string).collect();
/// assert_eq!(found, [
///     r##"#: "requird" is not a keyword of draft 2020-12 and is ignored; did you mean "required"?"##,
///     r##"#/properties/name: "minLenght" is not a keyword of draft 2020-12 and is ignored; did you mean "minLength"?"##,
/// ]);
/// ```
pub fn misspelled_keywords(schema: &Value, default_draft: Draft) -> Vec<Misspelling> {
    let mut found = Vec::new();
    // Depth-first with an explicit stack (no recursion on a deep document), children pushed in reverse so they
    // are visited in document order.
    let mut stack = vec![(schema, Location::root(), default_draft)];
    while let Some((value, location, draft)) = stack.pop() {
        let Value::Object(object) = value else {
            continue;
        };
        let draft = match object.get("$schema").and_then(Value::as_str) {
            Some(uri) => Draft::from_uri(uri).unwrap_or(draft),
            None => draft,
        };
        let mut children = Vec::new();
        for (key, member) in object {
            if let Some(meant) = misspelled(key, draft) {
                found.push(Misspelling {
                    location: location.to_fragment(),
                    found: key.clone(),
                    meant,
                    draft,
                });
            }
            let mut at = location.clone();
            at.push_key(key);
            match dialect::keyword(draft, key).map(|spec| spec.shape) {
                Some(Shape::Schema) => children.push((member, at, draft)),
                Some(Shape::SchemaMap) => {
                    if let Value::Object(map) = member {
                        for (name, schema) in map {
                            let mut entry = at.clone();
                            entry.push_key(name);
                            children.push((schema, entry, draft));
                        }
                    }
                }
                Some(Shape::SchemaArray | Shape::SchemaOrArray) => match member {
                    Value::Array(schemas) => {
                        for (idx, schema) in schemas.iter().enumerate() {
                            let mut entry = at.clone();
                            entry.push_index(idx);
                            children.push((schema, entry, draft));
                        }
                    }
                    // `items` as one schema.
                    other => children.push((other, at, draft)),
                },
                Some(Shape::Plain) | None => {}
            }
        }
        stack.extend(children.into_iter().rev());
    }
    found
}

/// The keyword of `draft` that `key` is one edit from, when `key` is no keyword and no known custom one.
fn misspelled(key: &str, draft: Draft) -> Option<&'static str> {
    if dialect::keyword(draft, key).is_some() || CUSTOM.contains(&key) || key.starts_with("x-") {
        return None;
    }
    dialect::keywords(draft)
        .map(|spec| spec.name)
        .find(|keyword| one_edit(key, keyword))
}

/// Whether `a` becomes `b` by exactly one insertion, deletion, substitution or swap of two neighbours.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    match a.len().abs_diff(b.len()) {
        // A substitution (the rest equal), or a swap of the first two that differ.
        0 => a[1..] == b[1..] || (a.len() >= 2 && a[0] == b[1] && a[1] == b[0] && a[2..] == b[2..]),
        // An insertion or deletion at the first difference.
        1 if a.len() > b.len() => a[1..] == *b,
        1 => b[1..] == *a,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_edit_is_one_insertion_deletion_substitution_or_swap() {
        for (a, b) in [
            ("requird", "required"),
            ("requiredd", "required"),
            ("reqiured", "required"),
            ("minlength", "minLength"),
            ("tpye", "type"),
            ("id", "$id"),
            ("enumm", "enum"),
        ] {
            assert!(one_edit(a, b), "{a} {b}");
            assert!(one_edit(b, a), "{b} {a}");
        }
        for (a, b) in [
            ("required", "required"),
            ("rqeuird", "required"),
            ("maximum", "minimum"),
            ("", "if"),
            ("ab", "ba c"),
        ] {
            assert!(!one_edit(a, b), "{a} {b}");
        }
        assert!(one_edit("", "a"));
    }

    #[test]
    fn it_looks_only_at_schema_positions_of_the_governing_draft() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"requird": {"tpye": "string"}},
            "enum": [{"requird": 1}],
            "default": {"tpye": 1},
            "examples": [{"tpye": 1}],
            "x-tpye": 1,
            "example": {"a": 1},
            "definitions": {"a": {"itemz": {}, "$defs": {}}},
            "items": [{"consts": 1}, true],
            "dependencies": {"a": ["b"], "c": {"minimun": 1}},
            "if": {"thn": {}},
            "allOf": [{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItem": []}]
        });
        let mut found: Vec<(String, String, &str)> = misspelled_keywords(&schema, Draft::Draft202012)
            .into_iter()
            .map(|m| (m.location().to_owned(), m.found().to_owned(), m.meant()))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("#/allOf/0".to_owned(), "prefixItem".to_owned(), "prefixItems"),
                ("#/definitions/a".to_owned(), "itemz".to_owned(), "items"),
                ("#/dependencies/c".to_owned(), "minimun".to_owned(), "minimum"),
                ("#/if".to_owned(), "thn".to_owned(), "then"),
                ("#/items/0".to_owned(), "consts".to_owned(), "const"),
                ("#/properties/requird".to_owned(), "tpye".to_owned(), "type"),
            ]
        );
    }

    #[test]
    fn a_keyword_of_another_draft_is_named_by_the_drafts_own_list() {
        let found = |schema: Value, draft| {
            misspelled_keywords(&schema, draft)
                .iter()
                .map(|m| m.meant())
                .collect::<Vec<_>>()
        };
        assert_eq!(found(json!({"id": "x"}), Draft::Draft4), Vec::<&str>::new());
        assert_eq!(found(json!({"id": "x"}), Draft::Draft7), ["$id"]);
        assert_eq!(found(json!({"$refs": "#"}), Draft::Draft7), ["$ref"]);
        assert_eq!(found(json!({"$defs": {}}), Draft::Draft7), Vec::<&str>::new());
        assert_eq!(
            found(json!({"definitions": {}}), Draft::Draft202012),
            Vec::<&str>::new()
        );
    }
}
