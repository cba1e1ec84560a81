//! Fitting case by case: what each mapping gets for each construct, what the account and the map-back plan say,
//! and the typed failures (limits, roots, hostile input).

use oa_pointer::Location;
use serde_json::{Value, json};

use super::super::{FitError, Limit, Reason, RewriteKind, fit};
use super::vendor;
use crate::model::Mapping;

fn account(schema: &Value, mapping: Mapping) -> Vec<(String, String, Reason)> {
    fit(schema, mapping)
        .unwrap()
        .account()
        .iter()
        .map(|clause| (clause.pointer.to_string(), clause.keyword.clone(), clause.reason))
        .collect()
}

fn entry(pointer: &str, keyword: &str, reason: Reason) -> (String, String, Reason) {
    (pointer.to_owned(), keyword.to_owned(), reason)
}

/// Fits for every mapping and checks the scripted vendor takes the result.
fn fit_all(schema: &Value) -> Vec<super::super::Fitted> {
    Mapping::ALL
        .into_iter()
        .map(|mapping| {
            let fitted = fit(schema, mapping).unwrap_or_else(|error| panic!("{mapping}: {error}"));
            if let Err(rejection) = vendor(mapping).check_schema(fitted.schema()) {
                panic!("{mapping} refuses {}: {rejection}", fitted.schema());
            }
            fitted
        })
        .collect()
}

fn validator(schema: &Value) -> oa_schema::Validator {
    oa_schema::Validator::new(schema).unwrap()
}

#[test]
fn openai_optional_properties_become_required_and_nullable_and_map_back() {
    let schema = json!({
        "type": "object",
        "properties": {
            "plain": {"type": "string"},
            "typed_null": {"type": ["string", "null"]},
            "any_of_null": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "enum_null": {"enum": ["a", null]},
            "const_null": {"const": null},
            "ref": {"$ref": "#/$defs/s"},
            "untyped": {"description": "anything"}
        },
        "$defs": {"s": {"type": "string", "minLength": 2}}
    });
    let fitted = fit(&schema, Mapping::OpenAi).unwrap();
    let sent = fitted.schema();
    assert!(vendor(Mapping::OpenAi).check_schema(sent).is_ok(), "{sent}");
    assert!(crate::openai::is_strict_compatible(sent), "{sent}");
    assert_eq!(sent["required"].as_array().unwrap().len(), 7);
    assert_eq!(sent["properties"]["plain"]["type"], json!(["string", "null"]));
    assert_eq!(
        sent["properties"]["typed_null"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        sent["properties"]["ref"],
        json!({"anyOf": [{"$ref": "#/$defs/s"}, {"type": "null"}]})
    );
    let caller = validator(&schema);
    // The nulls fitting introduced go; the ones the caller's schema allows stay.
    let mut answer = json!({"plain": null, "typed_null": null, "any_of_null": null, "enum_null": null,
                            "const_null": null, "ref": null, "untyped": null});
    let edits = fitted.map_back().apply(&mut answer, &caller);
    let edits: Vec<&str> = edits.iter().map(Location::as_str).collect();
    assert_eq!(edits, ["/plain", "/ref"]);
    assert_eq!(
        answer,
        json!({"typed_null": null, "any_of_null": null, "enum_null": null, "const_null": null, "untyped": null})
    );
    assert!(caller.is_valid(&answer));
    // A caller-valid answer is never touched.
    let mut valid = json!({"plain": "x", "typed_null": null});
    assert!(fitted.map_back().apply(&mut valid, &caller).is_empty());
}

#[test]
fn a_caller_rejected_answer_keeps_what_is_not_a_fitted_null() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
    let fitted = fit(&schema, Mapping::OpenAi).unwrap();
    let caller = validator(&schema);
    let mut answer = json!({"a": null, "b": "not a number"});
    fitted.map_back().apply(&mut answer, &caller);
    assert_eq!(answer, json!({"b": "not a number"}));
    assert!(!caller.is_valid(&answer));
}

/// Inside a union, a `null` one branch rejects can be one another branch takes once the answer's other nulls are
/// removed: only the edits the caller's schema needs are made (the `fit_properties` proptest's shrunk case: the
/// closed branch rejects `p1`, the open one takes `p1: null` once `p0`'s null is gone).
#[test]
fn inside_a_union_only_the_nulls_the_callers_schema_needs_go() {
    let string3 = json!({"type": "string", "minLength": 3, "maxLength": 3});
    let schema = json!({"type": "object", "required": [], "properties": {"p0": {"anyOf": [
        {"type": "object", "required": [], "properties": {"p0": string3, "p1": {"enum": [null]}}},
        {"type": "object", "required": [], "properties": {"p0": string3}, "additionalProperties": false}
    ]}}});
    let fitted = fit(&schema, Mapping::OpenAi).unwrap();
    let (caller, sent) = (validator(&schema), validator(fitted.schema()));
    let written = json!({"extra": "x", "p0": {"p0": null, "p1": null}});
    let mut answer = written.clone();
    let edits = fitted.map_back().apply(&mut answer, &caller);
    let edits: Vec<&str> = edits.iter().map(Location::as_str).collect();
    assert_eq!(edits, ["/p0/p0"]);
    assert_eq!(answer, json!({"extra": "x", "p0": {"p1": null}}));
    assert!(caller.is_valid(&answer));
    // A spelling the fitted schema accepts maps back the same way, the branch's own null kept.
    let mut spelled = json!({"p0": {"p0": null, "p1": null}});
    assert!(sent.is_valid(&spelled));
    let edits = fitted.map_back().apply(&mut spelled, &caller);
    assert_eq!((edits.len(), spelled), (1, json!({"p0": {"p1": null}})));
    // Where no branch takes the null, it still goes: here both branches' `p0` is a string.
    let mut answer = json!({"p0": {"p0": null}});
    fitted.map_back().apply(&mut answer, &caller);
    assert_eq!(answer, json!({"p0": {}}));
    // Branches that disagree on whether `k` may be null: the null the accepting branch takes stays.
    let schema = json!({"type": "object", "properties": {"u": {"anyOf": [
        {"type": "object", "properties": {"k": {"type": ["string", "null"]}, "j": {"type": "string"}}},
        {"type": "object", "properties": {"k": {"type": "string"}, "j": {"type": "string"}, "m": {"type": "string"}}}
    ]}}});
    let fitted = fit(&schema, Mapping::OpenAi).unwrap();
    let caller = validator(&schema);
    let mut answer = json!({"u": {"k": null, "j": null}});
    let edits = fitted.map_back().apply(&mut answer, &caller);
    let edits: Vec<&str> = edits.iter().map(Location::as_str).collect();
    assert_eq!((edits, &answer), (vec!["/u/j"], &json!({"u": {"k": null}})));
    assert!(caller.is_valid(&answer));
}

#[test]
fn one_of_is_exact_only_when_its_branches_cannot_overlap() {
    let tagged = json!({
        "type": "object",
        "properties": {"pet": {"oneOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}]}},
        "required": ["pet"],
        "$defs": {
            "cat": {"type": "object", "properties": {"kind": {"const": "cat"}}, "required": ["kind"]},
            "dog": {"type": "object", "properties": {"kind": {"const": "dog"}, "bark": {"type": "boolean"}},
                    "required": ["kind"]}
        }
    });
    for fitted in fit_all(&tagged) {
        assert!(
            fitted.account().is_empty(),
            "{}: {:?}",
            fitted.mapping(),
            fitted.account()
        );
        assert!(
            fitted
                .rewrites()
                .iter()
                .any(|rewrite| rewrite.kind == RewriteKind::DisjointOneOf)
        );
    }
    let overlapping =
        json!({"type": "object", "properties": {"n": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}});
    for mapping in Mapping::ALL {
        assert_eq!(
            account(&overlapping, mapping),
            [entry("/properties/n", "oneOf", Reason::Relaxed)],
            "{mapping}"
        );
    }
}

#[test]
fn all_of_merges_and_what_cannot_merge_is_accounted() {
    let schema = json!({
        "type": "object",
        "properties": {
            "code": {"allOf": [{"$ref": "#/$defs/base"}, {"pattern": "^B", "maxLength": 8}]}
        },
        "required": ["code"],
        "$defs": {"base": {"type": "string", "pattern": "^[A-Z]+$", "maxLength": 10}}
    });
    let fitted = fit_all(&schema);
    // OpenAI: the first pattern is sent, the second cannot merge (allOf is a 400): dropped; maxLength is uncertain.
    assert_eq!(
        fitted[0].schema()["properties"]["code"]["pattern"],
        json!("^[A-Z]+$")
    );
    let openai: Vec<_> = fitted[0]
        .account()
        .iter()
        .map(|c| (c.pointer.to_string(), c.keyword.as_str(), c.reason))
        .collect();
    assert_eq!(
        openai,
        [
            (
                "/properties/code/allOf/1".to_owned(),
                "maxLength",
                Reason::DroppedUncertain
            ),
            (
                "/properties/code/allOf/1".to_owned(),
                "pattern",
                Reason::DroppedRejected
            ),
        ]
    );
    // Anthropic takes allOf without $ref: the conflicting member is kept whole.
    let anthropic = fitted[1].schema()["properties"]["code"].clone();
    assert_eq!(
        anthropic["allOf"],
        json!([{"type": "string", "pattern": "^B"}]),
        "{anthropic}"
    );
    // Gemini ignores allOf: the conflict is dropped, the tighter maxLength (8) is sent and ignored.
    assert_eq!(fitted[2].schema()["properties"]["code"]["maxLength"], json!(8));
    let gemini: Vec<_> = fitted[2]
        .account()
        .iter()
        .map(|c| (c.keyword.as_str(), c.reason))
        .collect();
    assert!(
        gemini.contains(&("pattern", Reason::DroppedIgnored)),
        "{gemini:?}"
    );
}

#[test]
fn ref_with_siblings_in_each_dialect() {
    let schema = json!({
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/address", "description": "Where they live"}},
        "required": ["home"],
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    });
    let fitted = fit_all(&schema);
    let home = |idx: usize| fitted[idx].schema()["properties"]["home"].clone();
    assert_eq!(
        home(0),
        json!({"anyOf": [{"$ref": "#/$defs/address"}], "description": "Where they live"})
    );
    assert_eq!(home(1)["description"], json!("Where they live"));
    assert_eq!(
        home(1)["properties"]["city"],
        json!({"type": "string"}),
        "copied in for Anthropic"
    );
    assert_eq!(home(2), home(0));
    assert!(fitted.iter().all(|fitted| fitted.account().is_empty()));
}

#[test]
fn recursion_kept_unrolled_or_cut_per_provider() {
    let tree = json!({
        "$ref": "#/$defs/node",
        "$defs": {"node": {"type": "object", "properties": {
            "label": {"type": "string"},
            "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}
        }, "required": ["label", "kids"]}}
    });
    let fitted = fit_all(&tree);
    // OpenAI takes recursion: the root is the node, its kids refer back to it.
    assert_eq!(
        fitted[0].schema()["properties"]["kids"]["items"],
        json!({"$ref": "#"})
    );
    // Anthropic takes none: three more levels, then the kids' items are relaxed (only `[]` makes sense there).
    let anthropic = fitted[1].schema();
    assert_eq!(anthropic["$defs"].as_object().unwrap().len(), 3);
    assert_eq!(
        anthropic["$defs"]["node__3"]["properties"]["kids"]["items"],
        json!({"type": "null"})
    );
    assert_eq!(
        fitted[1]
            .account()
            .iter()
            .map(|c| (c.pointer.as_str(), c.keyword.as_str(), c.reason))
            .collect::<Vec<_>>(),
        [("/$defs/node/properties/kids", "items", Reason::Relaxed)]
    );
    // Gemini: a cycle through required properties only is unrolled too, ended by maxItems 0.
    let gemini = fitted[2].schema();
    assert_eq!(
        gemini["$defs"]["node__3"]["properties"]["kids"]["maxItems"],
        json!(0)
    );
    assert!(fitted[2].account().is_empty());
    // Through an optional property, Gemini takes the recursion as it is.
    let list = json!({"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}}, "required": ["v"]});
    assert_eq!(
        fit(&list, Mapping::Gemini).unwrap().schema()["properties"]["next"],
        json!({"$ref": "#"})
    );
    // Anthropic cuts the optional property at the last level.
    let cut = fit(&list, Mapping::Anthropic).unwrap();
    assert!(
        cut.schema()["$defs"]["root__3"]["properties"]
            .get("next")
            .is_none(),
        "{}",
        cut.schema()
    );
    assert!(cut.account().is_empty());
    assert!(vendor(Mapping::Anthropic).check_schema(cut.schema()).is_ok());
}

#[test]
fn a_recursion_with_no_way_out_is_unsatisfiable_for_anthropic() {
    let endless = json!({"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]});
    assert!(matches!(
        fit(&endless, Mapping::Anthropic),
        Err(FitError::Unsatisfiable { .. })
    ));
    // OpenAI sends it (the caller's schema has no finite answer either way; the vendor takes recursion).
    assert!(fit(&endless, Mapping::OpenAi).is_ok());
}

#[test]
fn anthropic_union_limit_is_met_by_dropping_optional_nulls_then_making_nullables_omittable() {
    let optional: serde_json::Map<String, Value> = (0..20)
        .map(|idx| {
            (
                format!("p{idx:02}"),
                json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": optional});
    let fitted = fit(&schema, Mapping::Anthropic).unwrap();
    assert!(vendor(Mapping::Anthropic).check_schema(fitted.schema()).is_ok());
    let dropped = fitted
        .rewrites()
        .iter()
        .filter(|rewrite| matches!(rewrite.kind, RewriteKind::NullDropped(_)))
        .count();
    assert_eq!(dropped, 4, "just enough to get 20 unions down to 16");
    assert!(fitted.map_back().is_empty() && fitted.account().is_empty());

    let required: serde_json::Map<String, Value> = (0..20)
        .map(|idx| (format!("p{idx:02}"), json!({"type": ["integer", "null"]})))
        .collect();
    let names: Vec<&String> = required.keys().collect();
    let schema = json!({"type": "object", "properties": required, "required": names});
    let fitted = fit(&schema, Mapping::Anthropic).unwrap();
    assert!(vendor(Mapping::Anthropic).check_schema(fitted.schema()).is_ok());
    assert_eq!(fitted.schema()["properties"]["p00"], json!({"type": "integer"}));
    assert_eq!(fitted.schema()["required"].as_array().unwrap().len(), 16);
    let caller = validator(&schema);
    let mut answer: Value = fitted.schema()["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| (name.as_str().unwrap().to_owned(), json!(1)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let edits = fitted.map_back().apply(&mut answer, &caller);
    assert_eq!(edits.len(), 4);
    assert_eq!(answer["p00"], Value::Null);
    assert!(caller.is_valid(&answer));

    // 40 required nullable properties: 24 can go omittable, 16 unions would still be... 40 - 24 = 16: fits exactly.
    let many: serde_json::Map<String, Value> = (0..41)
        .map(|idx| (format!("p{idx:02}"), json!({"type": ["integer", "null"]})))
        .collect();
    let names: Vec<&String> = many.keys().collect();
    let schema = json!({"type": "object", "properties": many, "required": names});
    assert!(matches!(
        fit(&schema, Mapping::Anthropic),
        Err(FitError::LimitExceeded {
            limit: Limit::UnionTypedParameters,
            found: 17,
            max: 16,
            ..
        })
    ));
}

#[test]
fn openai_limits_are_fit_failures() {
    let mut deep = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..10 {
        deep = json!({"type": "object", "properties": {"next": deep}});
    }
    assert!(matches!(
        fit(&deep, Mapping::OpenAi),
        Err(FitError::LimitExceeded {
            limit: Limit::Nesting,
            found: 11,
            max: 10,
            ..
        })
    ));
    assert!(fit(&deep, Mapping::Gemini).is_ok());
    let values: Vec<String> = (0..1_001).map(|idx| format!("v{idx}")).collect();
    let big = json!({"type": "object", "properties": {"e": {"enum": values}}});
    assert!(matches!(
        fit(&big, Mapping::OpenAi),
        Err(FitError::LimitExceeded {
            limit: Limit::EnumValues,
            ..
        })
    ));
}

#[test]
fn the_root_must_be_an_object_for_openai_and_anthropic() {
    let union =
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}]});
    for mapping in [Mapping::OpenAi, Mapping::Anthropic] {
        assert!(
            matches!(fit(&union, mapping), Err(FitError::RootNotObject { .. })),
            "{mapping}"
        );
    }
    assert!(fit(&union, Mapping::Gemini).is_ok());
    let with_type = json!({"type": "object", "properties": {"k": {"type": "string"}},
                           "oneOf": [{"required": ["k"]}, {"properties": {"j": {"type": "string"}}, "required": ["j"]}]});
    // OpenAI: the union is distributed over the object's keywords, which puts a union at the root: refused.
    assert!(matches!(
        fit(&with_type, Mapping::OpenAi),
        Err(FitError::RootNotObject { .. })
    ));
}

#[test]
fn schemas_with_no_type_are_narrowed_where_a_type_is_needed() {
    let schema = json!({"type": "object", "properties": {"any": {}, "list": {"type": "array"}, "obj": {"required": ["x"]}},
                        "required": ["any", "list", "obj"]});
    let fitted = fit_all(&schema);
    let scalars = json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]);
    assert_eq!(fitted[0].schema()["properties"]["any"]["anyOf"], scalars);
    assert_eq!(
        fitted[0].schema()["properties"]["list"]["items"]["anyOf"],
        scalars
    );
    assert_eq!(fitted[0].schema()["properties"]["obj"]["type"], json!("object"));
    assert_eq!(fitted[0].schema()["properties"]["obj"]["required"], json!(["x"]));
    assert_eq!(
        fitted[2].schema()["properties"]["any"],
        json!({}),
        "Gemini takes any value"
    );
}

#[test]
fn gemini_const_and_exclusive_bounds() {
    let schema = json!({"type": "object", "properties": {
        "kind": {"const": "point"},
        "flag": {"const": true},
        "n": {"type": "integer", "exclusiveMinimum": 0},
        "x": {"type": "number", "exclusiveMaximum": 1.5}
    }, "required": ["kind", "flag", "n", "x"]});
    let fitted = fit(&schema, Mapping::Gemini).unwrap();
    let sent = fitted.schema();
    assert_eq!(
        sent["properties"]["kind"],
        json!({"enum": ["point"], "type": "string"})
    );
    assert_eq!(sent["properties"]["n"]["minimum"], json!(1));
    assert_eq!(sent["properties"]["x"]["maximum"], json!(1.5));
    let account: Vec<_> = fitted
        .account()
        .iter()
        .map(|c| (c.pointer.as_str(), c.keyword.as_str(), c.reason))
        .collect();
    assert_eq!(
        account,
        [
            ("/properties/flag", "const", Reason::Relaxed),
            ("/properties/x", "exclusiveMaximum", Reason::Relaxed)
        ]
    );
}

#[test]
fn anthropic_relaxes_min_items_and_complex_enums() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 5},
        "point": {"enum": [{"x": 1}, "origin"]}
    }, "required": ["tags", "point"]});
    let fitted = fit(&schema, Mapping::Anthropic).unwrap();
    assert!(
        vendor(Mapping::Anthropic).check_schema(fitted.schema()).is_ok(),
        "{}",
        fitted.schema()
    );
    assert_eq!(fitted.schema()["properties"]["tags"]["minItems"], json!(1));
    let caller = validator(&schema);
    let sent = validator(fitted.schema());
    for answer in [
        json!({"tags": ["a", "b", "c"], "point": {"x": 1}}),
        json!({"tags": ["a", "b", "c"], "point": "origin"}),
    ] {
        assert!(caller.is_valid(&answer) && sent.is_valid(&answer), "{answer}");
    }
    assert_eq!(
        account(&schema, Mapping::Anthropic),
        [
            entry("/properties/point", "enum", Reason::Relaxed),
            entry("/properties/tags", "maxItems", Reason::DroppedRejected),
            entry("/properties/tags", "minItems", Reason::Relaxed),
        ]
    );
}

#[test]
fn references_fitting_cannot_follow_are_typed_errors() {
    for reference in ["other.json#/a", "#anchor", "#/$defs/missing"] {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
        assert!(
            matches!(
                fit(&schema, Mapping::OpenAi),
                Err(FitError::UnresolvableRef { .. })
            ),
            "{reference}"
        );
    }
    assert!(matches!(
        fit(&json!(3), Mapping::Gemini),
        Err(FitError::NotASchema { .. })
    ));
}

#[test]
fn hostile_input_is_bounded() {
    // Deep nesting: a typed error, no stack overflow. (Built by hand: `json!` would copy the value recursively; and
    // not deeper than serde_json's recursive drop takes on a test thread.)
    let mut deep = json!({"type": "string"});
    for _ in 0..400 {
        let mut properties = serde_json::Map::new();
        properties.insert("a".to_owned(), deep);
        let mut object = serde_json::Map::new();
        object.insert("type".to_owned(), json!("object"));
        object.insert("properties".to_owned(), Value::Object(properties));
        deep = Value::Object(object);
    }
    for mapping in Mapping::ALL {
        assert!(
            matches!(fit(&deep, mapping), Err(FitError::TooDeep { .. })),
            "{mapping}"
        );
    }
    // Exponential allOf inlining: a typed error.
    let mut defs = serde_json::Map::new();
    defs.insert(
        "a0".to_owned(),
        json!({"type": "object", "properties": {"x": {"type": "string"}}}),
    );
    for idx in 1..17 {
        let below = format!("#/$defs/a{}", idx - 1);
        defs.insert(
            format!("a{idx}"),
            json!({"allOf": [{"$ref": below}, {"$ref": below}]}),
        );
    }
    let laughs = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a16"}}, "$defs": defs});
    assert!(matches!(
        fit(&laughs, Mapping::OpenAi),
        Err(FitError::TooLarge { .. })
    ));
    // Exponential anyOf references stay references: small and fast.
    let mut defs = serde_json::Map::new();
    defs.insert("u0".to_owned(), json!({"type": "string"}));
    for idx in 1..20 {
        let below = format!("#/$defs/u{}", idx - 1);
        defs.insert(
            format!("u{idx}"),
            json!({"anyOf": [{"$ref": below}, {"$ref": below, "description": "d"}]}),
        );
    }
    let wide = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/u19"}}, "required": ["x"], "$defs": defs});
    for mapping in [Mapping::OpenAi, Mapping::Gemini] {
        let fitted = fit(&wide, mapping).unwrap();
        assert!(fitted.schema().to_string().len() < 20_000, "{mapping}");
    }
    // Anthropic copies a reference that carries annotations; past the union limit either way.
    assert!(fit(&wide, Mapping::Anthropic).is_err());
}

#[test]
fn the_fitted_schemas_pass_the_scripted_vendors_on_a_mixed_schema() {
    let schema = json!({
        "title": "Order",
        "type": "object",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "site": {"type": "string", "format": "uri", "pattern": "^https://(?!internal)"},
            "qty": {"type": "integer", "minimum": 1, "multipleOf": 1},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "minItems": 1, "uniqueItems": true},
            "meta": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"pattern": "^x-"}},
            "when": {"if": {"type": "string"}, "then": {"format": "date"}, "else": {"type": "null"}},
            "not_null": {"not": {"type": "null"}}
        },
        "required": ["id", "lines"],
        "dependentRequired": {"qty": ["lines"]},
        "$defs": {"line": {"type": "object", "properties": {"sku": {"type": "string", "minLength": 3}},
                           "required": ["sku"], "additionalProperties": false}}
    });
    fit_all(&schema);
}

#[test]
fn a_fit_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<super::super::Fitted>();
    shareable::<super::super::MapBack>();
    shareable::<FitError>();
}

#[test]
fn properties_named_like_keywords_are_names() {
    // Found by the `fit` fuzz target: a property named `$ref` hid the reference inside it.
    let schema = json!({
        "type": "object",
        "properties": {
            "$ref": {"$ref": "#/$defs/s"},
            "enum": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            "const": {"$ref": "#/$defs/s"}
        },
        "required": ["$ref", "enum", "const"],
        "$defs": {
            "s": {"type": "string"},
            "node": {"type": "object", "properties": {"enum": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                     "required": ["enum"]}
        }
    });
    for fitted in fit_all(&schema) {
        let sent = validator(fitted.schema());
        let answer = json!({"$ref": "a", "enum": [{"enum": []}], "const": "c"});
        assert!(
            sent.is_valid(&answer),
            "{}: {}",
            fitted.mapping(),
            fitted.schema()
        );
    }
    // The recursion through a property named `enum` is found, so Anthropic gets it unrolled.
    let anthropic = fit(&schema, Mapping::Anthropic).unwrap();
    assert!(
        anthropic.schema()["$defs"].get("node__1").is_some(),
        "{}",
        anthropic.schema()
    );
}
