//! `const` and `enum` in each provider's dialect (Gemini takes only string and number enums and no `const`;
//! Anthropic no objects or arrays in an enum, and OpenAI's closed-object rule leaves no room for one), and the two shapes of a nullable schema fitting writes and undoes:
//! `type: [T, "null"]` and `anyOf: [X, {"type": "null"}]`.

use oa_pointer::Location;
use serde_json::{Map, Value, json};

use super::account::{Reason, RewriteKind};
use super::doc;
use super::error::FitError;
use super::fitter::{Fitter, Node};
use super::frame::{Frame, TYPE_NAMES};
use crate::canonical::json_equal;
use crate::model::Mapping;

/// The values a frame lists (`const`, else `enum`), if it lists any.
pub(crate) fn listed_values(frame: &Frame) -> Option<Vec<Value>> {
    match (&frame.const_, &frame.enum_) {
        (Some((value, _)), _) => Some(vec![value.clone()]),
        (None, Some((values, _))) => Some(values.clone()),
        (None, None) => None,
    }
}

/// The type names of some values, in the order fitting writes them (`integer` folded into `number` when both occur).
pub(crate) fn types_of(values: &[Value]) -> Vec<&'static str> {
    let named: Vec<&'static str> = values.iter().map(doc::type_of).collect();
    let mut types: Vec<&'static str> = TYPE_NAMES
        .iter()
        .copied()
        .filter(|name| named.contains(name))
        .collect();
    if types.contains(&"number") {
        types.retain(|name| *name != "integer");
    }
    types
}

/// A schema every value of `value`'s shape satisfies (the value included): its type, and for containers the shapes
/// of what is inside. What an enum or const of a value the provider cannot list is relaxed to.
pub(crate) fn shape_of(value: &Value, depth: usize) -> Value {
    match value {
        Value::Object(map) if depth < 16 => {
            let properties: Map<String, Value> = map
                .iter()
                .map(|(name, member)| (name.clone(), shape_of(member, depth + 1)))
                .collect();
            let required: Vec<&String> = map.keys().collect();
            json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
        }
        Value::Array(items) if depth < 16 => {
            let mut shapes: Vec<Value> = Vec::new();
            for item in items {
                let shape = shape_of(item, depth + 1);
                if !shapes.contains(&shape) {
                    shapes.push(shape);
                }
            }
            let items = match shapes.len() {
                0 => json!({"type": "null"}),
                1 => shapes.remove(0),
                _ => json!({"anyOf": shapes}),
            };
            json!({"type": "array", "items": items})
        }
        other => json!({"type": doc::type_of(other)}),
    }
}

/// Whether a fitted schema is one of the two nullable shapes with a non-union inside: `type: [T, "null"]`, or
/// `anyOf: [X, {"type": "null"}]` with nothing but annotations beside it.
pub(crate) fn is_nullable_form(value: &Value) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    if let Some(Value::Array(names)) = map.get("type") {
        return names.len() == 2 && names.contains(&json!("null")) && !map.contains_key("anyOf");
    }
    let Some(Value::Array(members)) = map.get("anyOf") else {
        return false;
    };
    let null = json!({"type": "null"});
    let others = map
        .keys()
        .filter(|key| *key != "anyOf")
        .all(|key| !doc::is_assertion(key));
    others
        && members.len() == 2
        && members.iter().filter(|member| **member == null).count() == 1
        && members
            .iter()
            .find(|member| **member != null)
            .is_some_and(|inner| {
                inner.get("anyOf").is_none() && !inner.get("type").is_some_and(Value::is_array)
            })
}

impl Fitter<'_> {
    /// Writes the frame's `const`/`enum` in the mapping's dialect; `None` when no listed value is left.
    pub(crate) fn fit_values(
        &mut self,
        frame: &Frame,
        out: &mut Map<String, Value>,
        types: &mut Option<Vec<&'static str>>,
    ) -> Result<Option<()>, FitError> {
        let (Some(mut values), origin) = (listed_values(frame), values_origin(frame)) else {
            return Ok(Some(()));
        };
        if let (Some((constant, at)), Some((listed, _))) = (&frame.const_, &frame.enum_)
            && !listed.iter().any(|value| json_equal(value, constant))
        {
            self.rewrite(at, RewriteKind::Unreachable("const".to_owned()));
            return Ok(None);
        }
        // Values outside the declared types can never be answers: leaving them out is exact.
        if let Some((declared, _)) = &frame.types {
            values.retain(|value| {
                let name = doc::type_of(value);
                declared.contains(&name) || (name == "integer" && declared.contains(&"number"))
            });
            if values.is_empty() {
                return Ok(None);
            }
        }
        let keyword = if frame.const_.is_some() { "const" } else { "enum" };
        let listable = |value: &Value| match self.mapping {
            Mapping::OpenAi | Mapping::Anthropic => !(value.is_object() || value.is_array()),
            Mapping::Gemini => value.is_string() || value.is_number(),
        };
        if self.mapping == Mapping::Gemini
            && keyword == "const"
            && values.iter().all(|value| value.is_string() || value.is_number())
        {
            self.rewrite(&origin, RewriteKind::ConstRewritten);
            out.insert("enum".to_owned(), Value::Array(values));
            return Ok(Some(()));
        }
        if values.iter().all(listable) {
            if keyword == "const" {
                out.insert("const".to_owned(), values.remove(0));
            } else {
                out.insert("enum".to_owned(), Value::Array(values));
            }
            return Ok(Some(()));
        }
        // Some values the provider cannot list: the listable ones stay listed, the rest become their type (exact for
        // null, and for booleans when both are there) or their shape (relaxed).
        let (listed, rest): (Vec<Value>, Vec<Value>) = values.into_iter().partition(|value| listable(value));
        let mut branches = Vec::new();
        if !listed.is_empty() {
            let mut branch = Map::new();
            branch.insert("type".to_owned(), json!(one_or_many(&types_of(&listed))));
            branch.insert("enum".to_owned(), Value::Array(listed));
            branches.push(Value::Object(branch));
        }
        let mut exact = true;
        let booleans: Vec<&Value> = rest.iter().filter(|value| value.is_boolean()).collect();
        if !booleans.is_empty() {
            exact &= booleans.len() == 2;
            branches.push(json!({"type": "boolean"}));
        }
        if rest.iter().any(Value::is_null) {
            branches.push(json!({"type": "null"}));
        }
        for value in rest.iter().filter(|value| value.is_object() || value.is_array()) {
            exact = false;
            let shape = shape_of(value, 0);
            if !branches.contains(&shape) {
                branches.push(shape);
            }
        }
        for _ in 0..branches.len() {
            self.count_node()?;
        }
        if exact {
            self.rewrite(&origin, RewriteKind::ConstRewritten);
        } else {
            self.unenforced(&origin, keyword, Reason::Relaxed);
        }
        *types = None;
        if branches.len() == 1 {
            if let Some(Value::Object(branch)) = branches.pop() {
                out.extend(branch);
            }
        } else if frame.union.is_some() {
            // The frame's own union takes `anyOf`; the listed values cannot be said beside it.
            self.unenforced(&origin, keyword, Reason::DroppedUncertain);
        } else {
            out.insert("anyOf".to_owned(), Value::Array(branches));
        }
        Ok(Some(()))
    }

    /// Makes a fitted schema accept `null` too: `null` added to its type (and enum), else `anyOf: [it, null]`.
    pub(crate) fn make_nullable(&mut self, node: Node) -> Result<Node, FitError> {
        let Node { value, plan } = node;
        if let Value::Object(mut map) = value {
            // A union with nothing but annotations beside it takes `null` as one more branch.
            let bare_union = map.keys().all(|key| key == "anyOf" || !doc::is_assertion(key));
            if bare_union && let Some(Value::Array(members)) = map.get_mut("anyOf") {
                let null = json!({"type": "null"});
                if !members.contains(&null) {
                    self.count_node()?;
                    members.push(null);
                }
                return Ok(Node {
                    value: Value::Object(map),
                    plan,
                });
            }
            let simple =
                !map.contains_key("anyOf") && !map.contains_key("$ref") && !map.contains_key("const");
            let types = map.get("type").cloned();
            let extended = match types {
                // `["T", "null"]` is the documented form for scalars; objects and arrays take the `anyOf` form.
                Some(Value::String(name))
                    if simple && !matches!(name.as_str(), "null" | "object" | "array") =>
                {
                    Some(json!([name, "null"]))
                }
                Some(Value::Array(mut names))
                    if simple && !names.iter().any(|name| name == "object" || name == "array") =>
                {
                    if !names.contains(&json!("null")) {
                        names.push(json!("null"));
                    }
                    Some(Value::Array(names))
                }
                _ => None,
            };
            if let Some(extended) = extended {
                map.insert("type".to_owned(), extended);
                if let Some(Value::Array(listed)) = map.get_mut("enum")
                    && !listed.contains(&Value::Null)
                {
                    listed.push(Value::Null);
                }
                return Ok(Node {
                    value: Value::Object(map),
                    plan,
                });
            }
            return self.wrap_nullable(Value::Object(map), plan);
        }
        self.wrap_nullable(value, plan)
    }

    fn wrap_nullable(&mut self, value: Value, plan: usize) -> Result<Node, FitError> {
        self.count_node()?;
        let wrapper = self.plan.node();
        self.plan.alternative(wrapper, plan);
        Ok(Node {
            value: json!({"anyOf": [value, {"type": "null"}]}),
            plan: wrapper,
        })
    }

    /// Takes `null` out of a schema of nullable form (see [`is_nullable_form`]).
    pub(crate) fn strip_null(&mut self, node: Node, at: &Location) -> Node {
        let Node { value, plan } = node;
        let Value::Object(mut map) = value else {
            return Node { value, plan };
        };
        if map.get("default") == Some(&Value::Null) {
            map.remove("default");
        }
        if let Some(Value::Array(names)) = map.get("type") {
            let kept: Vec<Value> = names
                .iter()
                .filter(|name| **name != json!("null"))
                .cloned()
                .collect();
            if let [single] = kept.as_slice() {
                map.insert("type".to_owned(), single.clone());
            }
            if let Some(Value::Array(listed)) = map.get_mut("enum") {
                listed.retain(|value| !value.is_null());
            }
            return Node {
                value: Value::Object(map),
                plan,
            };
        }
        let Some(Value::Array(members)) = map.remove("anyOf") else {
            return Node {
                value: Value::Object(map),
                plan,
            };
        };
        let null = json!({"type": "null"});
        let inner = members
            .into_iter()
            .find(|member| *member != null)
            .unwrap_or(Value::Bool(true));
        if map.is_empty() {
            return Node { value: inner, plan };
        }
        let mut inner = match inner {
            Value::Object(inner) if inner.contains_key("$ref") => {
                match self.copy_of(&Value::Object(inner.clone())) {
                    Value::Object(body) if !body.contains_key("$ref") => body,
                    _ => {
                        // The definition is not fitted yet: keep the reference and let its annotations go.
                        for name in map.keys() {
                            self.rewrite(at, RewriteKind::AnnotationDropped(name.clone()));
                        }
                        return Node {
                            value: Value::Object(inner),
                            plan,
                        };
                    }
                }
            }
            Value::Object(inner) => inner,
            other => {
                return Node { value: other, plan };
            }
        };
        for (name, annotation) in map {
            inner.insert(name, annotation);
        }
        Node {
            value: Value::Object(inner),
            plan,
        }
    }
}

/// Where a frame's listed values were written.
fn values_origin(frame: &Frame) -> Location {
    match (&frame.const_, &frame.enum_) {
        (Some((_, at)), _) | (None, Some((_, at))) => at.clone(),
        (None, None) => frame.host.clone(),
    }
}

/// A `type` value: one name, or an array of them.
pub(crate) fn one_or_many(names: &[&str]) -> Value {
    match names {
        [single] => json!(single),
        many => json!(many),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_accept_their_value() {
        for value in [
            json!({"a": [1, "x", {"b": null}], "c": true}),
            json!([]),
            json!(2.5),
        ] {
            let shape = shape_of(&value, 0);
            let validator = oa_schema::Validator::new(&shape).unwrap();
            assert!(validator.is_valid(&value), "{shape}");
        }
    }

    #[test]
    fn nullable_forms() {
        assert!(is_nullable_form(&json!({"type": ["string", "null"]})));
        assert!(is_nullable_form(
            &json!({"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}], "description": "d"})
        ));
        assert!(!is_nullable_form(&json!({"type": ["string", "integer", "null"]})));
        assert!(!is_nullable_form(
            &json!({"anyOf": [{"type": ["string", "integer"]}, {"type": "null"}]})
        ));
        assert!(!is_nullable_form(
            &json!({"anyOf": [{"type": "string"}, {"type": "null"}], "minLength": 1})
        ));
        assert_eq!(
            types_of(&[json!(1), json!(1.5), json!("a")]),
            ["string", "number"]
        );
    }
}
