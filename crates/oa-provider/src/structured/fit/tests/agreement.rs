//! The fitting table against oa-testkit's scripted vendors, row by row: for each row a probe schema that uses the
//! row's construct and is valid for the vendor otherwise; the scripted vendor must refuse it exactly when the table
//! says the vendor answers it with a 400. The two were written apart, so agreement is evidence, not a tautology.

use serde_json::{Map, Value, json};

use super::super::table::{Stance, rows};
use super::vendor;
use crate::model::Mapping;

/// Rows no single probe schema stands for, each with why.
const NO_PROBE: [(&str, &str); 1] = [(
    "size and complexity",
    "Gemini publishes no numbers; there is nothing to probe",
)];

/// An object with one property `p` of schema `property`, closed and requiring it (valid for every vendor).
fn with(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}, "required": ["p"], "additionalProperties": false})
}

fn closed(extra: Value) -> Value {
    let mut object =
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
    if let (Some(object), Some(extra)) = (object.as_object_mut(), extra.as_object()) {
        object.extend(extra.clone());
    }
    object
}

/// A probe for `construct` on `mapping`.
fn probe(mapping: Mapping, construct: &str) -> Option<Value> {
    let string = |keyword: &str, value: Value| with(json!({"type": "string", keyword: value}));
    let number = |keyword: &str, value: Value| with(json!({"type": "number", keyword: value}));
    let array = |keyword: &str, value: Value| {
        with(json!({"type": "array", "items": {"type": "string"}, keyword: value}))
    };
    let object = |keyword: &str, value: Value| with(closed(json!({keyword: value})));
    let other_format = if mapping == Mapping::OpenAi {
        "uri"
    } else {
        "regex"
    };
    let listed_format = if mapping == Mapping::Anthropic {
        "uri"
    } else {
        "date"
    };
    Some(match construct {
        "root" => json!({"type": "array", "items": {"type": "string"}}),
        "type" | "properties" | "additionalProperties: false" | "required" => with(json!({"type": "string"})),
        "no type" => with(json!({"description": "anything"})),
        "enum" => string("enum", json!(["a", "b"])),
        "enum (object or array values)" => {
            with(json!({"type": "object", "properties": {"a": {"type": "integer"}},
                                                        "required": ["a"], "additionalProperties": false,
                                                        "enum": [{"a": 1}]}))
        }
        "enum (values other than strings and numbers)" => with(json!({"enum": [true, null]})),
        "const" => string("const", json!("a")),
        "required (not every property)" => {
            json!({"type": "object", "properties": {"p": {"type": "string"}}, "required": [], "additionalProperties": false})
        }
        "additionalProperties (absent, true, a schema)" => {
            json!({"type": "object", "properties": {}, "required": []})
        }
        "additionalProperties" => object("additionalProperties", json!(false)),
        "items" => with(json!({"type": "array", "items": {"type": "string"}})),
        "array without items" => with(json!({"type": "array"})),
        "prefixItems" => array("prefixItems", json!([{"type": "string"}])),
        "anyOf" => with(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
        "oneOf" | "allOf" => string(construct, json!([{"type": "string"}])),
        "not" | "if" | "then" | "else" => string(construct, json!({"type": "string"})),
        "allOf with $ref" => {
            let mut schema = with(json!({"allOf": [{"$ref": "#/$defs/s"}]}));
            schema["$defs"] = json!({"s": {"type": "string"}});
            schema
        }
        "dependentRequired" => object("dependentRequired", json!({"a": ["b"]})),
        "dependentSchemas" => object("dependentSchemas", json!({"a": {"required": ["b"]}})),
        "$ref, $defs, recursion" | "$ref, $defs" => {
            let mut schema = with(json!({"$ref": "#/$defs/s"}));
            schema["$defs"] = json!({"s": {"type": "string"}});
            schema
        }
        "$ref with sibling keywords" | "$ref with sibling keywords (other than $-keywords)" => {
            let mut schema = with(json!({"$ref": "#/$defs/s", "description": "d"}));
            schema["$defs"] = json!({"s": {"type": "string"}});
            schema
        }
        "recursion" | "recursion through required properties only" => {
            json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}},
                   "required": ["kids"], "additionalProperties": false})
        }
        "recursion through an optional property" => {
            json!({"type": "object", "properties": {"next": {"$ref": "#"}}, "required": [], "additionalProperties": false})
        }
        "pattern" => string("pattern", json!("^[a-z]+$")),
        "pattern (lookaround)" => string("pattern", json!("^(?!x)")),
        "pattern (backreference, lookaround, \\b, \\B, a {n,m} bound over 100)" => {
            string("pattern", json!("(a)\\1"))
        }
        construct if construct.starts_with("format (other)") => string("format", json!(other_format)),
        construct if construct.starts_with("format (") => string("format", json!(listed_format)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            number(construct, json!(2))
        }
        "minLength" | "maxLength" => string(construct, json!(2)),
        "minItems" | "minItems (0 or 1)" => array("minItems", json!(1)),
        "minItems (over 1)" => array("minItems", json!(2)),
        "maxItems" => array("maxItems", json!(2)),
        "uniqueItems" => array("uniqueItems", json!(true)),
        "contains" => array("contains", json!({"type": "string"})),
        "minContains" | "maxContains" => array(construct, json!(1)),
        "unevaluatedItems" => array("unevaluatedItems", json!(false)),
        "patternProperties" => object("patternProperties", json!({"^x": {"type": "string"}})),
        "propertyNames" => object("propertyNames", json!({"type": "string", "pattern": "^x"})),
        "minProperties" | "maxProperties" => object(construct, json!(0)),
        "unevaluatedProperties" => object("unevaluatedProperties", json!(false)),
        "$dynamicRef" => string("$dynamicRef", json!("#meta")),
        "title, description" | "title, description, default" => {
            with(json!({"type": "string", "title": "t", "description": "d"}))
        }
        "default and other annotations" | "other annotations" => {
            with(json!({"type": "string", "default": "a", "examples": ["a"]}))
        }
        "5,000 properties, 10 levels of nesting" => {
            let mut deep = with(json!({"type": "string"}));
            for _ in 0..10 {
                deep = with(deep);
            }
            deep
        }
        "1,000 enum values; 15,000 characters in a string enum over 250 values; 120,000 characters of names and values" =>
        {
            let values: Vec<String> = (0..1_001).map(|idx| format!("v{idx}")).collect();
            string("enum", json!(values))
        }
        "16 subschemas with a type array or anyOf" => {
            let properties: Map<String, Value> = (0..17)
                .map(|idx| (format!("p{idx}"), json!({"type": ["string", "null"]})))
                .collect();
            let names: Vec<&String> = properties.keys().collect();
            json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false})
        }
        "24 optional properties" => {
            let properties: Map<String, Value> = (0..25)
                .map(|idx| (format!("p{idx}"), json!({"type": "string"})))
                .collect();
            json!({"type": "object", "properties": properties, "required": [], "additionalProperties": false})
        }
        _ => return None,
    })
}

#[test]
fn the_scripted_vendors_refuse_exactly_the_rows_marked_400() {
    let mut n_probed = 0;
    let mut disagreements = Vec::new();
    for row in rows() {
        let Some(schema) = probe(row.mapping, row.construct) else {
            assert!(
                NO_PROBE.iter().any(|(construct, _)| *construct == row.construct),
                "{} {:?}: no probe and not in NO_PROBE",
                row.mapping,
                row.construct
            );
            continue;
        };
        n_probed += 1;
        let refused = vendor(row.mapping).check_schema(&schema);
        let expected = row.stance == Stance::Rejected;
        if refused.is_err() != expected {
            disagreements.push(format!(
                "{} {:?} ({:?}): scripted vendor says {refused:?}",
                row.mapping, row.construct, row.stance
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert_eq!(n_probed + NO_PROBE.len(), rows().count());
}

#[test]
fn the_probes_without_their_construct_pass() {
    // Guards the probes themselves: the base each probe builds on is valid for every scripted vendor.
    for mapping in Mapping::ALL {
        assert!(
            vendor(mapping)
                .check_schema(&with(json!({"type": "string"})))
                .is_ok(),
            "{mapping}"
        );
    }
}
