//! What `oa` adds to a schema's own errors so that they say what to do: a warning for each keyword the schema most
//! likely misspelled (unknown keywords are legal and silently ignored; the rule is oa-schema's
//! `misspelled_keywords`), and, when a schema that declares no `$schema` is invalid as the draft it was read as but
//! valid as another, the `--draft` that reads it.

use oa_schema::{Draft, Validator};
use serde_json::Value;

/// Prints one warning per likely misspelled keyword of `schema` (read as `default_draft` unless it names its own)
/// to stderr, as `command` (`oa validate`).
pub(crate) fn warn_misspellings(command: &str, schema: &Value, default_draft: Draft) {
    for found in oa_schema::misspelled_keywords(schema, default_draft) {
        eprintln!("{command}: warning: schema {found} (--no-warn silences this)");
    }
}

/// For a schema that declares no `$schema`, is invalid read as `read_as`, and compiles as another draft: what to
/// pass to read it so (`; ... it is a valid draft 7 schema: pass --draft 7, or add "$schema": ...`). Draft 7 is
/// tried first (most schemas that name no draft are written for it: 682 of SchemaStore's 951 name it), then the
/// newest.
pub(crate) fn draft_hint(schema: &Value, read_as: Draft) -> Option<String> {
    if schema.get("$schema").is_some() {
        return None;
    }
    let valid_as = [
        Draft::Draft7,
        Draft::Draft202012,
        Draft::Draft201909,
        Draft::Draft6,
        Draft::Draft4,
    ]
    .into_iter()
    .filter(|draft| *draft != read_as)
    .find(|draft| Validator::options().default_draft(*draft).build(schema).is_ok())?;
    Some(format!(
        "; the schema declares no $schema and was read as draft {read_as}, but it is a valid draft {valid_as} schema: \
         pass --draft {valid_as}, or add \"$schema\": \"{}\"",
        valid_as.meta_schema_uri()
    ))
}
