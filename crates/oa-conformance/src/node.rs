//! The fixture value tree: YAML loaded into an order-preserving value, and its JSON view.

use crate::error::{FixtureError, FixtureErrorKind};

/// One YAML value from a fixture, with mapping entries kept in document order.
///
/// Order matters for directive execution (conformance-adapter §8.3), so mappings are a `Vec` of
/// pairs rather than a hash map; comparisons against runtime values ignore it where §5 says so.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null` or `~`, or an empty value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A string scalar.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, its entries in document order; keys are scalars rendered as strings.
    Map(Vec<(String, Node)>),
}

/// The deepest nesting a fixture may use; the corpus stays far below it.
const MAX_DEPTH: usize = 128;

impl Node {
    /// Parses one YAML document into a [`Node`].
    ///
    /// # Errors
    ///
    /// `fixture_schema_invalid` for invalid YAML, more or fewer than one document, aliases the
    /// loader cannot resolve, non-scalar mapping keys, duplicate keys, non-finite floats or nesting
    /// deeper than 128 levels.
    pub fn from_yaml_str(text: &str) -> Result<Node, FixtureError> {
        let docs = yaml_rust2::YamlLoader::load_from_str(text).map_err(|error| {
            FixtureError::new(
                FixtureErrorKind::SchemaInvalid,
                "",
                format!("invalid YAML: {error}"),
            )
        })?;
        match docs.as_slice() {
            [doc] => from_yaml(doc, "", 0),
            [] => Ok(Node::Null),
            _ => Err(FixtureError::new(
                FixtureErrorKind::SchemaInvalid,
                "",
                format!("{} YAML documents in one fixture file, expected one", docs.len()),
            )),
        }
    }

    /// The value at `key` when this is a mapping holding it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The mapping entries, or `None` when this is not a mapping.
    pub fn as_map(&self) -> Option<&[(String, Node)]> {
        match self {
            Node::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The sequence items, or `None` when this is not a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match self {
            Node::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The string, or `None` when this is not a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(text) => Some(text),
            _ => None,
        }
    }

    /// The boolean, or `None` when this is not a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    /// The integer, or `None` when this is not an integer (floats with no fraction included).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Int(n) => Some(*n),
            #[allow(clippy::cast_possible_truncation)]
            Node::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(*x as i64),
            _ => None,
        }
    }

    /// The number as `f64`, or `None` when this is not a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            #[allow(clippy::cast_precision_loss)]
            Node::Int(n) => Some(*n as f64),
            Node::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// A short name of this value's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "boolean",
            Node::Int(_) | Node::Float(_) => "number",
            Node::Str(_) => "string",
            Node::Seq(_) => "sequence",
            Node::Map(_) => "mapping",
        }
    }

    /// The JSON value this node denotes (mapping order is not kept: JSON object order is not
    /// significant in any comparison the fixtures make).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Null => Value::Null,
            Node::Bool(flag) => Value::Bool(*flag),
            Node::Int(n) => Value::from(*n),
            // Non-finite floats are rejected at load, so `from_f64` always succeeds here.
            Node::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            Node::Str(text) => Value::String(text.clone()),
            Node::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Node::Map(entries) => {
                Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }
}

fn from_yaml(yaml: &yaml_rust2::Yaml, location: &str, depth: usize) -> Result<Node, FixtureError> {
    use yaml_rust2::Yaml;
    let invalid = |detail: String| FixtureError::new(FixtureErrorKind::SchemaInvalid, location, detail);
    if depth > MAX_DEPTH {
        return Err(invalid(format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    Ok(match yaml {
        Yaml::Null => Node::Null,
        Yaml::Boolean(flag) => Node::Bool(*flag),
        Yaml::Integer(n) => Node::Int(*n),
        Yaml::Real(text) => match yaml.as_f64() {
            Some(x) if x.is_finite() => Node::Float(x),
            _ => return Err(invalid(format!("number {text:?} is not a finite float"))),
        },
        Yaml::String(text) => Node::Str(text.clone()),
        Yaml::Array(items) => Node::Seq(
            items
                .iter()
                .enumerate()
                .map(|(idx, item)| from_yaml(item, &format!("{location}/{idx}"), depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(hash) => {
            let mut entries: Vec<(String, Node)> = Vec::with_capacity(hash.len());
            for (key, value) in hash {
                let key = match key {
                    Yaml::String(text) | Yaml::Real(text) => text.clone(),
                    Yaml::Integer(n) => n.to_string(),
                    Yaml::Boolean(flag) => flag.to_string(),
                    Yaml::Null => "null".to_owned(),
                    _ => return Err(invalid("a mapping key is not a scalar".to_owned())),
                };
                if entries.iter().any(|(k, _)| *k == key) {
                    return Err(invalid(format!("duplicate mapping key {key:?}")));
                }
                let child = from_yaml(value, &format!("{location}/{key}"), depth + 1)?;
                entries.push((key, child));
            }
            Node::Map(entries)
        }
        Yaml::Alias(_) => return Err(invalid("YAML aliases are not supported".to_owned())),
        Yaml::BadValue => return Err(invalid("unreadable YAML value".to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_order_is_document_order() {
        let node = Node::from_yaml_str("b: 1\na: 2\nc: {z: 1, y: 2}\n").unwrap();
        let keys: Vec<&str> = node.as_map().unwrap().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        let inner: Vec<&str> = node
            .get("c")
            .unwrap()
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(inner, ["z", "y"]);
    }

    #[test]
    fn scalars_keep_their_yaml_types() {
        let node = Node::from_yaml_str("[1, 1.5, 'x', null, true, \"[DONE]\"]").unwrap();
        assert_eq!(
            node,
            Node::Seq(vec![
                Node::Int(1),
                Node::Float(1.5),
                Node::Str("x".into()),
                Node::Null,
                Node::Bool(true),
                Node::Str("[DONE]".into()),
            ])
        );
    }

    #[test]
    fn broken_yaml_is_schema_invalid() {
        let error = Node::from_yaml_str("a: [1, 2\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
        let error = Node::from_yaml_str("a: 1\na: 2\n").unwrap_err();
        assert!(error.to_string().contains("duplicate"), "{error}");
    }

    #[test]
    fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
        let text = format!("{}1{}", "[".repeat(400), "]".repeat(400));
        // The YAML scanner itself may refuse this depth; either way it is a typed error.
        assert!(Node::from_yaml_str(&text).is_err());
    }

    #[test]
    fn json_view_matches() {
        let node = Node::from_yaml_str("{a: [1, 2.5], b: null}").unwrap();
        assert_eq!(node.to_json(), serde_json::json!({"a": [1, 2.5], "b": null}));
    }
}
