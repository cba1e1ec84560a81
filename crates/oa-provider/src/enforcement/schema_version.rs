//! Which schema produced a structured result (`schema_version`), stamped on every structured
//! [`Response`](crate::Response) beside its `schema_mode`.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical;

/// The `schema_version` of `schema`: the lowercase hex SHA-256 of its canonical JSON (object keys sorted
/// recursively, no insignificant whitespace, array order kept), so key order and formatting never change it
/// and any change of content does.
pub fn schema_version(schema: &Value) -> String {
    version_of_canonical(&canonical::to_string(schema))
}

/// The `schema_version` of a schema whose canonical text is `canonical` (the compiled-schema cache has the text
/// already, and keeps it for the request body).
pub(crate) fn version_of_canonical(canonical: &str) -> String {
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_version_is_sha256_of_canonical_json() {
        // sha256 of the empty object's canonical text "{}".
        assert_eq!(
            schema_version(&json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        let one: Value =
            serde_json::from_str(r#"{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}"#)
                .unwrap();
        let two: Value = serde_json::from_str(
            "{ \"properties\" : { \"a\" : { \"enum\" : [\"x\"], \"type\" : \"string\" } },\n \"type\" : \"object\" }",
        )
        .unwrap();
        assert_eq!(schema_version(&one), schema_version(&two));
        let changed = json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["y"]}}});
        assert_ne!(schema_version(&one), schema_version(&changed));
        assert_eq!(schema_version(&one).len(), 64);
    }
}
