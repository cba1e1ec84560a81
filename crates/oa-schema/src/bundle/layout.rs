//! Where each node goes in the bundle, and writing it there.
//!
//! The nodes the root reaches (through subschemas and references) are placed from the root: a subschema under its
//! parent, at the path its keyword's 2020-12 form gives it. A node no placed parent holds (a `definitions` entry,
//! the root of another document, a subschema a reference points into) is placed at its own pointer, under its
//! document's home (`""` for the root document, `/$defs/NAME` for another), when that spot is inside a placed
//! schema's `$defs` or `definitions` (where 2020-12 reads nothing unless referred to) or under no placed schema at
//! all; anywhere else (inside a keyword 2020-12 would read) it gets a `$defs` entry of its own at the root.

use super::parts::{self, Content, Note, Parts, Token};
use super::{Bundle, Inexpressible, Subschema, origin_of};
use crate::compile::push_fragment_encoded;
use crate::keywords::Keyword;
use crate::node::{Body, CompiledSchema, NodeId};
use crate::registry::escape_token;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The URI of the draft 2020-12 meta-schema, which the bundle declares.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

pub(super) fn bundle(schema: &CompiledSchema) -> Bundle {
    let reachable = reachable(schema);
    let unevaluated_items = reachable.iter().any(|id| {
        matches!(&schema.nodes[*id as usize].body, Body::Keywords(keywords)
            if keywords.iter().any(|keyword| matches!(keyword, Keyword::UnevaluatedItems(_))))
    });
    let parts: HashMap<NodeId, Parts> = reachable
        .iter()
        .map(|id| (*id, parts::of(schema, *id, unevaluated_items)))
        .collect();
    let mut layout = Layout {
        schema,
        parts: &parts,
        pointers: HashMap::new(),
        occupied: BTreeMap::new(),
        roots: Vec::new(),
        homes: HashMap::new(),
    };
    layout.place_tree(schema.root, String::new());
    // Nodes no placed parent holds, in document order (a document's root before what is below it).
    let mut parents: HashMap<NodeId, NodeId> = HashMap::new();
    for (id, node_parts) in &parts {
        for (_, content) in &node_parts.members {
            if let Content::Schema(child) = content {
                parents.insert(*child, *id);
            }
        }
    }
    let mut loose: Vec<(u32, String, NodeId)> = reachable
        .iter()
        .filter(|id| **id != schema.root && !parents.contains_key(id))
        .map(|id| {
            let origin = origin_of(schema, *id);
            let document = schema.resources[schema.nodes[*id as usize].resource as usize].document;
            (document, origin.pointer, *id)
        })
        .collect();
    loose.sort();
    let mut fallback = Vec::new();
    for (document, pointer, id) in loose {
        if layout.pointers.contains_key(&id) {
            continue;
        }
        let home = layout.home(document);
        let candidate = format!("{home}{pointer}");
        if layout.fits(&candidate, &home) {
            layout.place_tree(id, candidate);
        } else {
            fallback.push((pointer, id));
        }
    }
    for (pointer, id) in fallback {
        let name = pointer
            .rsplit('/')
            .next()
            .filter(|name| !name.is_empty())
            .unwrap_or("schema")
            .to_owned();
        let at = layout.free_def(&name);
        layout.place_tree(id, at);
    }
    layout.write()
}

/// Every node the root reaches, through subschemas and references, in a stable order.
fn reachable(schema: &CompiledSchema) -> Vec<NodeId> {
    let mut seen = vec![false; schema.nodes.len()];
    let mut order = Vec::new();
    let mut stack = vec![schema.root];
    while let Some(id) = stack.pop() {
        let Some(slot) = seen.get_mut(id as usize) else {
            continue;
        };
        if *slot {
            continue;
        }
        *slot = true;
        order.push(id);
        let Body::Keywords(keywords) = &schema.nodes[id as usize].body else {
            continue;
        };
        for keyword in keywords.iter().flat_map(Keyword::parts) {
            children(keyword, &mut stack);
        }
    }
    order.sort_unstable();
    order
}

/// The nodes a keyword applies or refers to.
fn children(keyword: &Keyword, out: &mut Vec<NodeId>) {
    match keyword {
        Keyword::Ref(id)
        | Keyword::DynamicRef { target: id, .. }
        | Keyword::Items { node: id, .. }
        | Keyword::Contains { node: id, .. }
        | Keyword::AdditionalProperties { node: id, .. }
        | Keyword::PropertyNames(id)
        | Keyword::Not(id)
        | Keyword::UnevaluatedProperties(id)
        | Keyword::UnevaluatedItems(id) => out.push(*id),
        Keyword::PrefixItems(ids) | Keyword::AllOf(ids) | Keyword::AnyOf(ids, _) | Keyword::OneOf(ids, _) => {
            out.extend(ids.iter());
        }
        Keyword::Properties { entries, .. } | Keyword::DependentSchemas(entries) => {
            out.extend(entries.iter().map(|(_, id)| *id));
        }
        Keyword::Dependencies { schemas, .. } => out.extend(schemas.iter().map(|(_, id)| *id)),
        Keyword::PatternProperties(entries) => out.extend(entries.iter().map(|(_, id)| *id)),
        Keyword::If { if_, then, else_ } => out.extend([Some(*if_), *then, *else_].into_iter().flatten()),
        Keyword::Type(_)
        | Keyword::Const(_)
        | Keyword::Enum(_)
        | Keyword::Bound { .. }
        | Keyword::MultipleOf { .. }
        | Keyword::MaxLength(_)
        | Keyword::MinLength(_)
        | Keyword::Pattern { .. }
        | Keyword::Format { .. }
        | Keyword::MaxItems(_)
        | Keyword::MinItems(_)
        | Keyword::UniqueItems
        | Keyword::MaxProperties(_)
        | Keyword::MinProperties(_)
        | Keyword::Required(_)
        | Keyword::DependentRequired(_)
        | Keyword::Shape(_)
        | Keyword::Unresolved { .. } => {}
    }
}

struct Layout<'s> {
    schema: &'s CompiledSchema,
    parts: &'s HashMap<NodeId, Parts>,
    /// Where each placed node is (an escaped JSON Pointer into the bundle).
    pointers: HashMap<NodeId, String>,
    /// Every placed node, by pointer.
    occupied: BTreeMap<String, NodeId>,
    /// The nodes placed other than as a placed node's subschema, in placing order (the root first).
    roots: Vec<NodeId>,
    /// Where each other document's nodes go: `/$defs/NAME`.
    homes: HashMap<u32, String>,
}

impl Layout<'_> {
    /// Places node `id` at `pointer`, and its subschemas below it.
    fn place_tree(&mut self, id: NodeId, pointer: String) {
        self.roots.push(id);
        let mut stack = vec![(id, pointer)];
        while let Some((id, pointer)) = stack.pop() {
            if self.pointers.contains_key(&id) {
                continue;
            }
            if let Some(parts) = self.parts.get(&id) {
                for (path, content) in &parts.members {
                    if let Content::Schema(child) = content {
                        stack.push((*child, join(&pointer, path)));
                    }
                }
            }
            self.occupied.insert(pointer.clone(), id);
            self.pointers.insert(id, pointer);
        }
    }

    /// Where a document's nodes go: the root document's at their own pointers, another's under `/$defs/NAME`.
    fn home(&mut self, document: u32) -> String {
        if document == 0 {
            return String::new();
        }
        if let Some(home) = self.homes.get(&document) {
            return home.clone();
        }
        let uri = self
            .schema
            .documents
            .get(document as usize)
            .map_or("", |uri| &**uri);
        let name = uri
            .split(['#', '?'])
            .next()
            .unwrap_or_default()
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .filter(|name| !name.is_empty())
            .unwrap_or("document")
            .to_owned();
        let home = self.free_def(&name);
        self.homes.insert(document, home.clone());
        home
    }

    /// A `/$defs/NAME` at the root that nothing is placed at or under, nor is a document's home.
    fn free_def(&mut self, name: &str) -> String {
        let mut candidate = format!("/$defs/{}", escape_token(name));
        let mut n = 1;
        while self.taken(&candidate) || self.homes.values().any(|home| *home == candidate) {
            n += 1;
            candidate = format!("/$defs/{}-{n}", escape_token(name));
        }
        candidate
    }

    /// Whether a placed node is at, under or above `pointer` (root excepted for "above").
    fn taken(&self, pointer: &str) -> bool {
        let below = format!("{pointer}/");
        self.occupied.contains_key(pointer)
            || self
                .occupied
                .range(below.clone()..)
                .next()
                .is_some_and(|(next, _)| next.starts_with(&below))
    }

    /// Whether a node may sit at `pointer` (under `home`): nothing placed at or below it, and the path to it from
    /// the nearest placed schema above it (an object), or from its document's home where no placed schema is
    /// between, goes through `$defs`/`definitions` entries only (`/definitions/a`, `/$defs/a/$defs/b`): where
    /// 2020-12 reads nothing unless referred to, and where every object on the way is a schema.
    fn fits(&self, pointer: &str, home: &str) -> bool {
        if self.taken(pointer) {
            return false;
        }
        let mut above = pointer;
        while let Some(cut) = above.rfind('/') {
            above = &above[..cut];
            let placed = self.occupied.get(above);
            let at_home = !home.is_empty() && above == home;
            if placed.is_none() && !at_home {
                continue;
            }
            if placed.is_some_and(|id| !matches!(self.schema.nodes[*id as usize].body, Body::Keywords(_))) {
                return false;
            }
            let rest: Vec<&str> = pointer
                .get(above.len()..)
                .unwrap_or_default()
                .split('/')
                .skip(1)
                .collect();
            return rest.len().is_multiple_of(2)
                && rest
                    .chunks(2)
                    .all(|pair| matches!(pair.first(), Some(&"$defs" | &"definitions")));
        }
        // The home itself, for a document's root.
        !home.is_empty() && pointer == home
    }

    /// Writes every placed node and collects the origins and notes.
    fn write(self) -> Bundle {
        let mut subschemas = BTreeMap::new();
        let mut inexpressible = Vec::new();
        let mut document = Value::Bool(true);
        for (index, id) in self.roots.iter().enumerate() {
            let Some(pointer) = self.pointers.get(id) else {
                continue;
            };
            let value = self.node(*id, pointer, &mut subschemas, &mut inexpressible);
            if index == 0 {
                document = value;
            } else {
                insert(&mut document, pointer, value);
            }
        }
        if let Value::Object(root) = &mut document {
            root.insert("$schema".to_owned(), Value::String(DRAFT_2020_12.to_owned()));
        }
        Bundle {
            schema: document,
            subschemas,
            inexpressible,
        }
    }

    /// Node `id` as JSON, its subschemas in place; records its origin and notes.
    fn node(
        &self,
        id: NodeId,
        pointer: &str,
        subschemas: &mut BTreeMap<String, Subschema>,
        inexpressible: &mut Vec<Inexpressible>,
    ) -> Value {
        let origin = origin_of(self.schema, id);
        let empty = Parts::default();
        let parts = self.parts.get(&id).unwrap_or(&empty);
        let renamed_in = |member: Option<usize>| -> Vec<(&'static str, &'static str)> {
            parts
                .renamed
                .iter()
                .filter(|(at, ..)| *at == member)
                .map(|(_, written, original)| (*written, *original))
                .collect()
        };
        subschemas.insert(
            pointer.to_owned(),
            Subschema {
                origin: origin.clone(),
                renamed: renamed_in(None),
            },
        );
        for member in &parts.extra_members {
            subschemas.insert(
                format!("{pointer}/allOf/{member}"),
                Subschema {
                    origin: origin.clone(),
                    renamed: renamed_in(Some(*member)),
                },
            );
        }
        for note in &parts.inexpressible {
            let at = pointer.to_owned();
            inexpressible.push(match note {
                Note::Dynamic(keyword) => Inexpressible::DynamicReference {
                    pointer: at,
                    origin: origin.clone(),
                    keyword,
                },
                Note::Unresolved(index) => match self.schema.unresolved.get(*index as usize) {
                    Some(reference) => Inexpressible::UnresolvedReference {
                        pointer: at,
                        reference: reference.clone(),
                    },
                    None => continue,
                },
                Note::ContainsNotEvaluating => Inexpressible::ContainsNotEvaluating {
                    pointer: at,
                    origin: origin.clone(),
                },
                Note::FormatAsserted => Inexpressible::FormatAssertion {
                    pointer: at,
                    origin: origin.clone(),
                },
            });
        }
        match &self.schema.nodes[id as usize].body {
            Body::Bool(verdict) => return Value::Bool(*verdict),
            Body::Keywords(_) => {}
        }
        let mut object = Value::Object(Map::new());
        for (path, content) in &parts.members {
            let value = match content {
                Content::Value(value) => value.clone(),
                Content::Schema(child) => {
                    let child_pointer = join(pointer, path);
                    if self
                        .pointers
                        .get(child)
                        .is_some_and(|placed| *placed == child_pointer)
                    {
                        self.node(*child, &child_pointer, subschemas, inexpressible)
                    } else {
                        // Placed elsewhere first (reached by a reference before its parent was placed): referred to.
                        reference(self.pointers.get(child))
                    }
                }
                Content::Ref(target) => Value::String(fragment(self.pointers.get(target))),
            };
            insert_at(&mut object, path, value);
        }
        object
    }
}

/// A `{"$ref": ...}` to a placed node.
fn reference(pointer: Option<&String>) -> Value {
    let mut object = Map::new();
    object.insert("$ref".to_owned(), Value::String(fragment(pointer)));
    Value::Object(object)
}

/// The fragment reference to a pointer (`#` and the pointer, percent-encoded).
fn fragment(pointer: Option<&String>) -> String {
    let mut out = String::from("#");
    push_fragment_encoded(pointer.map_or("", String::as_str), &mut out);
    out
}

/// `pointer` followed by `path`'s tokens, escaped.
fn join(pointer: &str, path: &[Token]) -> String {
    let mut out = pointer.to_owned();
    for token in path {
        out.push('/');
        match token {
            Token::Key(key) => out.push_str(&escape_token(key)),
            Token::Index(index) => out.push_str(&index.to_string()),
        }
    }
    out
}

/// Puts `value` at `path` below `object`, making the objects and arrays on the way.
fn insert_at(object: &mut Value, path: &[Token], value: Value) {
    let Some((last, above)) = path.split_last() else {
        *object = value;
        return;
    };
    let mut target = object;
    for (step, next) in above.iter().zip(path.iter().skip(1)) {
        let empty = match next {
            Token::Key(_) => Value::Object(Map::new()),
            Token::Index(_) => Value::Array(Vec::new()),
        };
        target = match step {
            Token::Key(key) => match target {
                Value::Object(map) => map.entry(key.clone()).or_insert(empty),
                _ => return,
            },
            Token::Index(index) => match target {
                Value::Array(items) => {
                    while items.len() <= *index {
                        items.push(empty.clone());
                    }
                    &mut items[*index]
                }
                _ => return,
            },
        };
    }
    match (last, target) {
        (Token::Key(key), Value::Object(map)) => {
            map.insert(key.clone(), value);
        }
        (Token::Index(index), Value::Array(items)) => {
            while items.len() < *index {
                items.push(Value::Bool(true));
            }
            if items.len() == *index {
                items.push(value);
            } else {
                items[*index] = value;
            }
        }
        _ => {}
    }
}

/// Puts `value` at the escaped JSON `pointer` below `document`, making objects on the way (the tokens below the
/// placed schema above it are `$defs`/`definitions` members; those down to it may pass through arrays: `allOf/1`).
fn insert(document: &mut Value, pointer: &str, value: Value) {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, above)) = tokens.split_last() else {
        *document = value;
        return;
    };
    let mut target = document;
    for token in above {
        target = match target {
            Value::Array(items) => match token.parse::<usize>().ok().and_then(|index| items.get_mut(index)) {
                Some(item) => item,
                None => return,
            },
            Value::Object(map) => map
                .entry(token.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            _ => return,
        };
    }
    if let Value::Object(map) = target {
        map.insert(last.clone(), value);
    }
}
