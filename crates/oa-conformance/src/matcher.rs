//! The §5.10 value matchers: format tokens, first-occurrence bindings, the `"*"` wildcard,
//! present-null versus absent, numeric equality across integer and float, and the §5.13
//! `carries` flavors (`_present`, `_mentions`).

use std::collections::HashMap;

use serde_json::Value;

use crate::node::Node;
use crate::vocabulary::{CarriesFlavor, split_carries_key};

/// How a mapping in the expectation constrains the keys of the actual mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// No extra keys: a wire request is compared key by key (005 header).
    Exact,
    /// Extra keys are allowed: subset match (§5.13 mapping-valued fields, response records).
    Subset,
}

/// One difference between an expectation and what the run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// Where, as a path into the compared value.
    pub(crate) path: String,
    /// What differed.
    pub(crate) detail: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "/" } else { &self.path };
        write!(f, "at {path}: {}", self.detail)
    }
}

/// §5.10's assertion sub-keys: a mapping made only of these asserts on the value instead of being one.
const ASSERTION_KEYS: &[&str] = &["non_empty_string", "harness_parameterized"];

fn is_assertion_mapping(entries: &[(String, Node)]) -> bool {
    !entries.is_empty()
        && entries
            .iter()
            .all(|(key, _)| ASSERTION_KEYS.contains(&key.as_str()))
}

/// The values `harness_parameterized: <name>` compares with: what this implementation injects about itself.
fn harness_parameter(name: &str) -> Option<&'static str> {
    match name {
        "implementation_name" => Some(oa_events::IMPLEMENTATION_NAME),
        "implementation_version" => Some(oa_events::IMPLEMENTATION_VERSION),
        "spec_version" => Some(oa_events::SPEC_VERSION),
        _ => None,
    }
}

/// The name prefixes of first-occurrence-binding tokens the suites define (§5.10: the observability
/// suite's `<trace_id_X>`, `<corr_id_N>`, `<span_id_X>`, `<invocation_id_X>`, and 0126's `<call_id_X>`).
const BINDING_PREFIXES: &[&str] = &["trace_id_", "corr_id_", "span_id_", "invocation_id_", "call_id_"];

/// A matcher for one case: first-occurrence bindings live as long as it does (§5.10: bindings are
/// per case).
#[derive(Debug, Default, Clone)]
pub(crate) struct Matcher {
    bindings: HashMap<String, Value>,
}

impl Matcher {
    /// Checks `actual` (`None` when the key is absent) against `expected`.
    pub(crate) fn check(
        &mut self,
        expected: &Node,
        actual: Option<&Value>,
        path: &str,
        keys: Keys,
    ) -> Result<(), Mismatch> {
        let fail = |detail: String| {
            Err(Mismatch {
                path: path.to_owned(),
                detail,
            })
        };
        let Some(actual) = actual else {
            return fail(format!("absent, expected {}", describe(expected)));
        };
        match expected {
            Node::Str(text) => self.check_string(text, actual, path),
            Node::Null => match actual {
                Value::Null => Ok(()),
                other => fail(format!("expected null, found {}", short(other))),
            },
            Node::Bool(flag) => match actual {
                Value::Bool(got) if got == flag => Ok(()),
                other => fail(format!("expected {flag}, found {}", short(other))),
            },
            Node::Int(_) | Node::Float(_) => {
                if numbers_equal(expected, actual) {
                    Ok(())
                } else {
                    fail(format!(
                        "expected {}, found {}",
                        describe(expected),
                        short(actual)
                    ))
                }
            }
            Node::Seq(items) => {
                let Value::Array(got) = actual else {
                    return fail(format!("expected a list, found {}", short(actual)));
                };
                if got.len() != items.len() {
                    return fail(format!("expected {} items, found {}", items.len(), got.len()));
                }
                for (idx, (want, have)) in items.iter().zip(got).enumerate() {
                    self.check(want, Some(have), &format!("{path}/{idx}"), keys)?;
                }
                Ok(())
            }
            Node::Map(entries) if is_assertion_mapping(entries) => {
                for (key, want) in entries {
                    let holds = match key.as_str() {
                        "non_empty_string" => {
                            (want.as_bool() == Some(true)) == actual.as_str().is_some_and(|s| !s.is_empty())
                        }
                        _ => match want.as_str().and_then(harness_parameter) {
                            Some(injected) => actual.as_str() == Some(injected),
                            None => return fail(format!("no harness parameter {}", describe(want))),
                        },
                    };
                    if !holds {
                        return fail(format!(
                            "{key}: {} does not satisfy {}",
                            short(actual),
                            describe(want)
                        ));
                    }
                }
                Ok(())
            }
            Node::Map(entries) => {
                let Value::Object(got) = actual else {
                    return fail(format!("expected a mapping, found {}", short(actual)));
                };
                for (key, want) in entries {
                    self.check(want, got.get(key), &format!("{path}/{key}"), keys)?;
                }
                if keys == Keys::Exact
                    && let Some(extra) = got.keys().find(|k| !entries.iter().any(|(e, _)| e == *k))
                {
                    return Err(Mismatch {
                        path: format!("{path}/{extra}"),
                        detail: "unexpected key".to_owned(),
                    });
                }
                Ok(())
            }
        }
    }

    fn check_string(&mut self, text: &str, actual: &Value, path: &str) -> Result<(), Mismatch> {
        let fail = |detail: String| {
            Err(Mismatch {
                path: path.to_owned(),
                detail,
            })
        };
        let got = actual.as_str();
        let wants_format = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                fail(format!("expected {what}, found {}", short(actual)))
            }
        };
        match text {
            "*" | "<any-string>" => wants_format(got.is_some_and(|s| !s.is_empty()), "a non-empty string"),
            "<uuid>" => wants_format(got.is_some_and(is_uuid_v4), "a canonical UUIDv4"),
            _ if text.starts_with("<uuid-hex") && text.ends_with('>') => {
                wants_format(got.is_some_and(is_uuid_hex), "32 lowercase hex digits")
            }
            _ if is_binding_token(text) => match self.bindings.get(text) {
                Some(bound) if bound == actual => Ok(()),
                Some(bound) => fail(format!(
                    "{text} is bound to {}, found {}",
                    short(bound),
                    short(actual)
                )),
                None if actual.is_null() => fail(format!("{text} cannot bind to null")),
                None => {
                    self.bindings.insert(text.to_owned(), actual.clone());
                    Ok(())
                }
            },
            _ if got != Some(text) && path.ends_with("/function/arguments") && same_json_text(text, got) => {
                Ok(())
            }
            _ => wants_format(got == Some(text), &format!("{text:?}")),
        }
    }

    /// Checks a `carries` block against the error's exposed fields (§5.12, §5.13; 0126's list form of
    /// `_mentions`). A field the error does not expose is absent (`None` / missing key).
    pub(crate) fn check_carries(
        &mut self,
        carries: &Node,
        fields: &serde_json::Map<String, Value>,
        path: &str,
    ) -> Result<(), Mismatch> {
        let Some(entries) = carries.as_map() else {
            return Err(Mismatch {
                path: path.to_owned(),
                detail: "carries is not a mapping".to_owned(),
            });
        };
        for (key, want) in entries {
            let key_path = format!("{path}/{key}");
            let (field, flavor) = split_carries_key(key);
            let got = fields.get(field).filter(|v| !v.is_null());
            match flavor {
                CarriesFlavor::Exact => self.check(want, fields.get(field), &key_path, Keys::Subset)?,
                CarriesFlavor::Present => {
                    let want_present = want.as_bool().unwrap_or(true);
                    if got.is_some() != want_present {
                        let detail = if want_present {
                            "expected present"
                        } else {
                            "expected absent"
                        };
                        return Err(Mismatch {
                            path: key_path,
                            detail: detail.to_owned(),
                        });
                    }
                }
                CarriesFlavor::Mentions => {
                    let Some(haystack) = got.and_then(Value::as_str) else {
                        return Err(Mismatch {
                            path: key_path,
                            detail: format!("`{field}` is not a string"),
                        });
                    };
                    let needles: Vec<&str> = match want {
                        Node::Seq(items) => items.iter().filter_map(Node::as_str).collect(),
                        other => other.as_str().into_iter().collect(),
                    };
                    if let Some(missing) = needles.iter().find(|needle| !haystack.contains(**needle)) {
                        return Err(Mismatch {
                            path: key_path,
                            detail: format!("does not mention {missing:?} (value: {haystack:?})"),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// Tool-call `arguments` travel as JSON-encoded strings (llm-provider §8.1.1); the corpus writes
/// them with and without spaces (005 vs 053), so the adapter compares them as the JSON they encode.
fn same_json_text(expected: &str, actual: Option<&str>) -> bool {
    let parse = |text: &str| serde_json::from_str::<Value>(text).ok();
    match (parse(expected), actual.and_then(parse)) {
        (Some(want), Some(have)) => want == have,
        _ => false,
    }
}

fn is_binding_token(text: &str) -> bool {
    text.strip_prefix('<')
        .and_then(|inner| inner.strip_suffix('>'))
        .is_some_and(|inner| {
            BINDING_PREFIXES
                .iter()
                .any(|prefix| inner.len() > prefix.len() && inner.starts_with(prefix))
        })
}

/// A canonical (lowercase, hyphenated) UUID whose version nibble is 4 and variant is RFC 4122.
fn is_uuid_v4(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(idx, b)| match idx {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_digit() || (b'a'..=b'f').contains(b),
        })
        && bytes[14] == b'4'
        && matches!(bytes[19], b'8' | b'9' | b'a' | b'b')
}

fn is_uuid_hex(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Numeric equality that ignores the integer/float distinction (1 == 1.0).
fn numbers_equal(expected: &Node, actual: &Value) -> bool {
    let Value::Number(got) = actual else { return false };
    match (expected, got.as_i64(), got.as_u64()) {
        (Node::Int(want), Some(have), _) => *want == have,
        (Node::Int(_), None, Some(_)) => false,
        _ => match (expected.as_f64(), got.as_f64()) {
            (Some(want), Some(have)) => want == have,
            _ => false,
        },
    }
}

fn describe(expected: &Node) -> String {
    short(&expected.to_json())
}

/// A bounded rendering of a value for a mismatch message.
pub(crate) fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 160 {
        let cut = (0..=157)
            .rev()
            .find(|idx| text.is_char_boundary(*idx))
            .unwrap_or(0);
        format!("{}...", &text[..cut])
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn node(yaml: &str) -> Node {
        Node::from_yaml_str(yaml).unwrap()
    }

    fn check(yaml: &str, actual: &Value, keys: Keys) -> Result<(), Mismatch> {
        Matcher::default().check(&node(yaml), Some(actual), "", keys)
    }

    #[test]
    fn literals_and_numeric_equality() {
        check(
            "{a: 1, b: x, c: true}",
            &json!({"a": 1, "b": "x", "c": true}),
            Keys::Exact,
        )
        .unwrap();
        check("{a: 1}", &json!({"a": 1.0}), Keys::Exact).unwrap();
        check("{a: 1.0}", &json!({"a": 1}), Keys::Exact).unwrap();
        check("{a: 0.7}", &json!({"a": 0.7}), Keys::Exact).unwrap();
        assert!(check("{a: 1}", &json!({"a": 2}), Keys::Exact).is_err());
        assert!(check("{a: 1}", &json!({"a": "1"}), Keys::Exact).is_err());
        assert!(check("{a: 1}", &json!({"a": 1.5}), Keys::Exact).is_err());
    }

    #[test]
    fn assertion_sub_keys_assert_on_the_value() {
        let name = oa_events::IMPLEMENTATION_NAME;
        check("{non_empty_string: true}", &json!("x"), Keys::Exact).unwrap();
        assert!(check("{non_empty_string: true}", &json!(""), Keys::Exact).is_err());
        assert!(check("{non_empty_string: true}", &json!(3), Keys::Exact).is_err());
        let both = "{harness_parameterized: implementation_name, non_empty_string: true}";
        check(both, &json!(name), Keys::Exact).unwrap();
        assert!(check(both, &json!("openarmature-python"), Keys::Exact).is_err());
        assert!(
            check(
                "{harness_parameterized: favourite_colour}",
                &json!("x"),
                Keys::Exact
            )
            .is_err()
        );
        // A mapping with any other key is a mapping to compare.
        assert!(check("{non_empty_string: true, other: 1}", &json!("x"), Keys::Exact).is_err());
    }

    #[test]
    fn present_null_is_not_absent() {
        check("{a: null}", &json!({"a": null}), Keys::Subset).unwrap();
        let mismatch = check("{a: null}", &json!({}), Keys::Subset).unwrap_err();
        assert_eq!(mismatch.path, "/a");
        assert!(mismatch.detail.contains("absent"), "{mismatch}");
        assert!(check("{a: null}", &json!({"a": 0}), Keys::Subset).is_err());
    }

    #[test]
    fn exact_rejects_extra_keys_subset_allows_them() {
        let actual = json!({"a": 1, "extra": 2});
        let mismatch = check("{a: 1}", &actual, Keys::Exact).unwrap_err();
        assert_eq!(mismatch.path, "/extra");
        check("{a: 1}", &actual, Keys::Subset).unwrap();
    }

    #[test]
    fn key_order_is_not_significant() {
        check("{b: 2, a: 1}", &json!({"a": 1, "b": 2}), Keys::Exact).unwrap();
    }

    #[test]
    fn list_order_and_length_are_significant() {
        check("[1, 2]", &json!([1, 2]), Keys::Exact).unwrap();
        assert!(check("[1, 2]", &json!([2, 1]), Keys::Exact).is_err());
        assert!(check("[1, 2]", &json!([1, 2, 3]), Keys::Exact).is_err());
    }

    #[test]
    fn wildcard_and_any_string_need_a_non_empty_string() {
        for token in ["'*'", "<any-string>"] {
            check(token, &json!("x"), Keys::Exact).unwrap();
            assert!(check(token, &json!(""), Keys::Exact).is_err(), "{token}");
            assert!(check(token, &json!(3), Keys::Exact).is_err(), "{token}");
            assert!(
                Matcher::default()
                    .check(&node(token), None, "", Keys::Exact)
                    .is_err()
            );
        }
    }

    #[test]
    fn uuid_formats() {
        check(
            "<uuid>",
            &json!("123e4567-e89b-42d3-a456-426614174000"),
            Keys::Exact,
        )
        .unwrap();
        assert!(
            check(
                "<uuid>",
                &json!("123e4567-e89b-12d3-a456-426614174000"),
                Keys::Exact
            )
            .is_err(),
            "v1"
        );
        assert!(
            check(
                "<uuid>",
                &json!("123E4567-E89B-42D3-A456-426614174000"),
                Keys::Exact
            )
            .is_err(),
            "upper"
        );
        assert!(check("<uuid>", &json!("123e4567e89b42d3a456426614174000"), Keys::Exact).is_err());
        check(
            "<uuid-hex>",
            &json!("123e4567e89b42d3a456426614174000"),
            Keys::Exact,
        )
        .unwrap();
        check(
            "<uuid-hex-5-a>",
            &json!("123e4567e89b42d3a456426614174000"),
            Keys::Exact,
        )
        .unwrap();
        assert!(
            check(
                "<uuid-hex>",
                &json!("123e4567-e89b-42d3-a456-426614174000"),
                Keys::Exact
            )
            .is_err()
        );
    }

    #[test]
    fn labelled_uuid_hex_tokens_do_not_cross_bind() {
        let mut matcher = Matcher::default();
        let expected = node("[<uuid-hex-1>, <uuid-hex-1>]");
        let actual = json!([
            "123e4567e89b42d3a456426614174000",
            "00000000000000000000000000000000"
        ]);
        matcher.check(&expected, Some(&actual), "", Keys::Exact).unwrap();
    }

    #[test]
    fn first_occurrence_binding() {
        let expected = node("[<trace_id_parent>, <trace_id_parent>, <trace_id_child>]");
        let mut matcher = Matcher::default();
        matcher
            .check(&expected, Some(&json!(["t1", "t1", "t2"])), "", Keys::Exact)
            .unwrap();
        let mut matcher = Matcher::default();
        let mismatch = matcher
            .check(&expected, Some(&json!(["t1", "t2", "t3"])), "", Keys::Exact)
            .unwrap_err();
        assert_eq!(mismatch.path, "/1");
        // Distinct tokens bind independently, so equal values under distinct tokens are fine.
        let mut matcher = Matcher::default();
        matcher
            .check(&expected, Some(&json!(["t1", "t1", "t1"])), "", Keys::Exact)
            .unwrap();
        // Bindings persist across checks within one case.
        let mut matcher = Matcher::default();
        matcher
            .check(&node("<call_id_1>"), Some(&json!("c")), "", Keys::Exact)
            .unwrap();
        assert!(
            matcher
                .check(&node("<call_id_1>"), Some(&json!("d")), "", Keys::Exact)
                .is_err()
        );
    }

    #[test]
    fn tool_call_arguments_compare_as_encoded_json() {
        let expected = node("{function: {arguments: '{\"a\": 1, \"b\": 2}'}}");
        let actual = json!({"function": {"arguments": "{\"b\":2,\"a\":1}"}});
        Matcher::default()
            .check(&expected, Some(&actual), "", Keys::Exact)
            .unwrap();
        let other = json!({"function": {"arguments": "{\"a\":1}"}});
        assert!(
            Matcher::default()
                .check(&expected, Some(&other), "", Keys::Exact)
                .is_err()
        );
        // Elsewhere, strings stay literal.
        let expected = node("{content: '{\"a\": 1}'}");
        assert!(
            Matcher::default()
                .check(&expected, Some(&json!({"content": "{\"a\":1}"})), "", Keys::Exact)
                .is_err()
        );
    }

    #[test]
    fn ordinary_angle_bracket_strings_are_literals() {
        check("<html>", &json!("<html>"), Keys::Exact).unwrap();
        assert!(check("<html>", &json!("x"), Keys::Exact).is_err());
    }

    fn fields(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn carries_flavors() {
        let error = fields(json!({
            "output_content": "{\"age\": \"x\"}",
            "error_message": "#/age: expected integer; #/name: missing",
            "response_schema": {"type": "object"},
            "finish_reason": "stop",
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "cached_tokens": null},
            "structured_output_path": null,
        }));
        let mut matcher = Matcher::default();
        let ok = node(
            "{response_schema_present: true, output_content: '{\"age\": \"x\"}', error_message_mentions: [\"#/age\", integer], \
             finish_reason: stop, usage: {prompt_tokens: 1, total_tokens: 3}, structured_output_path_present: false}",
        );
        matcher.check_carries(&ok, &error, "").unwrap();
        for bad in [
            "{error_message_mentions: [\"#/age\", \"#/zip\"]}",
            "{error_message_mentions: lat}",
            "{response_schema_present: false}",
            "{structured_output_path_present: true}",
            "{usage: {prompt_tokens: 9}}",
            "{output_content: other}",
        ] {
            assert!(matcher.check_carries(&node(bad), &error, "").is_err(), "{bad}");
        }
    }
}
