//! Every subschema of a schema with the keys that lead to it, in document order, without recursion; and the
//! schema's `$ref` graph, for the rules about recursion.

use serde_json::{Map, Value};

/// A subschema and where it is.
pub(crate) struct Visit<'a> {
    pub(crate) context: Vec<String>,
    pub(crate) schema: &'a Value,
}

/// How deep the walk goes; a schema nested deeper is reported by the caller as too deep.
pub(crate) const MAX_DEPTH: usize = 512;

/// Keywords whose value is one subschema.
const ONE: [&str; 10] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of subschemas.
const LIST: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Every subschema, the root first, depth first in document order (a boolean under a one-schema keyword, such as
/// `additionalProperties: false`, is a value there, not visited); `None` past [`MAX_DEPTH`].
pub(crate) fn subschemas(root: &Value) -> Option<Vec<Visit<'_>>> {
    let mut out = Vec::new();
    let mut pending = vec![Visit {
        context: Vec::new(),
        schema: root,
    }];
    while let Some(visit) = pending.pop() {
        if visit.context.len() > MAX_DEPTH {
            return None;
        }
        let mut children = Vec::new();
        if let Value::Object(map) = visit.schema {
            for (key, value) in map {
                let at = |tokens: &[&str]| {
                    let mut context = visit.context.clone();
                    context.extend(tokens.iter().map(|token| (*token).to_owned()));
                    context
                };
                if ONE.contains(&key.as_str()) && value.is_object() {
                    children.push(Visit {
                        context: at(&[key]),
                        schema: value,
                    });
                } else if LIST.contains(&key.as_str()) {
                    for (idx, member) in value.as_array().into_iter().flatten().enumerate() {
                        children.push(Visit {
                            context: at(&[key, &idx.to_string()]),
                            schema: member,
                        });
                    }
                } else if MAP.contains(&key.as_str()) {
                    for (name, member) in value.as_object().into_iter().flatten() {
                        children.push(Visit {
                            context: at(&[key, name]),
                            schema: member,
                        });
                    }
                }
            }
        }
        out.push(visit);
        pending.extend(children.into_iter().rev());
    }
    Some(out)
}

/// Whether a subschema describes objects (`type` is or includes `object`).
pub(crate) fn is_object(map: &Map<String, Value>) -> bool {
    has_type(map, "object")
}

/// Whether `type` is or includes `name`.
pub(crate) fn has_type(map: &Map<String, Value>, name: &str) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == name,
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == name),
        _ => false,
    }
}

/// The names listed under `required`.
pub(crate) fn required(map: &Map<String, Value>) -> Vec<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The reference graph: node 0 is the root, then one node per `$ref` target pointer. Each edge says whether the path
/// from its node to the `$ref` passes through a property its object does not require.
pub(crate) struct RefGraph {
    pub(crate) targets: Vec<String>,
    pub(crate) edges: Vec<Vec<(usize, bool)>>,
}

impl RefGraph {
    pub(crate) fn of(root: &Value) -> Self {
        let mut graph = Self {
            targets: vec!["#".to_owned()],
            edges: vec![Vec::new()],
        };
        let mut next = 0;
        while next < graph.targets.len() {
            let body = resolve(root, &graph.targets[next]);
            let mut pending: Vec<(&Value, bool, usize)> =
                body.into_iter().map(|body| (body, false, 0)).collect();
            while let Some((node, optional, depth)) = pending.pop() {
                let Value::Object(map) = node else {
                    continue;
                };
                if depth > MAX_DEPTH {
                    continue;
                }
                if let Some(target) = map.get("$ref").and_then(Value::as_str) {
                    let id = match graph.targets.iter().position(|held| held == target) {
                        Some(id) => id,
                        None => {
                            graph.targets.push(target.to_owned());
                            graph.edges.push(Vec::new());
                            graph.targets.len() - 1
                        }
                    };
                    graph.edges[next].push((id, optional));
                }
                let names = required(map);
                for (key, value) in map {
                    match key.as_str() {
                        "properties" => {
                            for (name, member) in value.as_object().into_iter().flatten() {
                                pending.push((
                                    member,
                                    optional || !names.contains(&name.as_str()),
                                    depth + 1,
                                ));
                            }
                        }
                        "$defs" | "definitions" | "enum" | "const" | "default" | "examples" => {}
                        _ if ONE.contains(&key.as_str()) => pending.push((value, optional, depth + 1)),
                        _ if LIST.contains(&key.as_str()) => {
                            pending.extend(
                                value
                                    .as_array()
                                    .into_iter()
                                    .flatten()
                                    .map(|member| (member, optional, depth + 1)),
                            );
                        }
                        _ if MAP.contains(&key.as_str()) => {
                            pending.extend(
                                value
                                    .as_object()
                                    .into_iter()
                                    .flatten()
                                    .map(|(_, member)| (member, optional, depth + 1)),
                            );
                        }
                        _ => {}
                    }
                }
            }
            next += 1;
        }
        graph
    }

    /// The node of a cycle that uses only edges `keep` accepts, if any (found by repeatedly removing nodes with no
    /// outgoing kept edge: what remains lies on or leads to a cycle).
    pub(crate) fn cycle(&self, keep: impl Fn(bool) -> bool) -> Option<usize> {
        let n_nodes = self.targets.len();
        let out: Vec<Vec<usize>> = self
            .edges
            .iter()
            .map(|edges| {
                edges
                    .iter()
                    .filter(|(_, optional)| keep(*optional))
                    .map(|(to, _)| *to)
                    .collect()
            })
            .collect();
        let mut alive = vec![true; n_nodes];
        loop {
            let mut changed = false;
            for node in 0..n_nodes {
                if alive[node] && !out[node].iter().any(|to| alive[*to]) {
                    alive[node] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        alive.iter().position(|alive| *alive)
    }
}

/// The subschema a local reference points to (`#` or `#/...`, percent-decoded, `~` unescaped).
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = percent_decode(fragment)?;
    if decoded.is_empty() {
        return Some(root);
    }
    root.pointer(&decoded)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut idx = 0;
    while idx < bytes.len() {
        if bytes[idx] == b'%' {
            let hex = text.get(idx + 1..idx + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            idx += 3;
        } else {
            out.push(bytes[idx]);
            idx += 1;
        }
    }
    String::from_utf8(out).ok()
}
