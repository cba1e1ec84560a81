//! One compiled node as the members of a draft 2020-12 schema object: each keyword's value, subschema or reference
//! at its path below the node, with the keywords renamed from older drafts recorded, and what 2020-12 cannot say.

use crate::keywords::{Bound, Keyword};
use crate::node::{Body, CompiledSchema, NodeId};
use crate::violation::ViolationKind;
use serde_json::{Value, json};
use std::collections::HashSet;

/// A step below a node.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Token {
    Key(String),
    Index(usize),
}

/// What sits at a path below a node.
#[derive(Debug)]
pub(super) enum Content {
    /// A keyword's plain value.
    Value(Value),
    /// A subschema, written in place.
    Schema(NodeId),
    /// A `$ref` to a node, written as a fragment pointer to where that node is placed.
    Ref(NodeId),
}

/// A node's members, and the notes that go with them.
#[derive(Debug, Default)]
pub(super) struct Parts {
    /// Each member at its path (first token: the 2020-12 keyword), in writing order. A keyword whose path another
    /// already holds (a `$ref` beside a `$dynamicRef`, a `dependencies` entry beside a `dependentSchemas` one) is
    /// moved into an `allOf` member of its own, which changes nothing in 2020-12.
    pub(super) members: Vec<(Vec<Token>, Content)>,
    /// `allOf` members made for such moves, by index: the subschemas with no node of their own.
    pub(super) extra_members: Vec<usize>,
    /// 2020-12 keywords written from another keyword of the caller's schema: (written, original), and the `allOf`
    /// member they were moved into (`None`: the node itself).
    pub(super) renamed: Vec<(Option<usize>, &'static str, &'static str)>,
    /// What 2020-12 cannot say: (keyword of the caller's schema, what).
    pub(super) inexpressible: Vec<Note>,
}

/// Something of a node that the bundle cannot say as it means.
#[derive(Debug, Clone, Copy)]
pub(super) enum Note {
    /// A dynamic reference whose target depends on the dynamic scope (`keyword`: `$dynamicRef`, `$recursiveRef`).
    Dynamic(&'static str),
    /// A reference that resolves to nothing (its index among the unresolved references).
    Unresolved(u32),
    /// 2019-09's `contains`, whose matches `unevaluatedItems` does not count as evaluated.
    ContainsNotEvaluating,
    /// `format` asserted by the meta-schema's vocabulary rather than by the options.
    FormatAsserted,
}

/// The members of node `id`; `unevaluated_items`: whether any reachable node has `unevaluatedItems`.
pub(super) fn of(schema: &CompiledSchema, id: NodeId, unevaluated_items: bool) -> Parts {
    let mut parts = Parts::default();
    let Some(Body::Keywords(keywords)) = schema.nodes.get(id as usize).map(|node| &node.body) else {
        return parts;
    };
    let mut writer = Writer {
        parts: &mut parts,
        n_all_of: keywords
            .iter()
            .find_map(|keyword| match keyword {
                Keyword::AllOf(members) => Some(members.len()),
                _ => None,
            })
            .unwrap_or(0),
        leaves: HashSet::new(),
        prefixes: HashSet::new(),
        last_member: None,
    };
    // `dependencies` (before 2019-09, and kept by 2020-12) is written as `dependentRequired` and
    // `dependentSchemas`; its string lists merge with `dependentRequired`'s (both require all they name).
    let mut required: Vec<(String, Vec<String>)> = Vec::new();
    let mut from_dependencies = false;
    for keyword in keywords.iter().flat_map(Keyword::parts) {
        match keyword {
            Keyword::DependentRequired(rules) => merge_rules(&mut required, rules),
            Keyword::Dependencies { required: rules, .. } if !rules.is_empty() => {
                merge_rules(&mut required, rules);
                from_dependencies = true;
            }
            _ => {}
        }
    }
    for (name, names) in required {
        writer.put(
            vec![key("dependentRequired"), Token::Key(name)],
            Content::Value(json!(names)),
        );
    }
    if from_dependencies {
        writer.rename("dependentRequired", "dependencies");
    }
    for keyword in keywords.iter().flat_map(Keyword::parts) {
        write_keyword(&mut writer, schema, keyword, unevaluated_items);
    }
    if let Some(annotations) = schema.annotations_of(id) {
        for (name, value) in annotations {
            // A value the 2020-12 meta-schema would refuse (an older draft that did not know the keyword let it
            // be anything) is left out: it annotated nothing there. An asserted `format` is written already.
            let fits = match *name {
                "title" | "description" | "format" | "contentEncoding" | "contentMediaType" => {
                    value.is_string()
                }
                "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
                "examples" => value.is_array(),
                _ => true,
            };
            if fits {
                writer.put_if_free(vec![key(name)], Content::Value(value.clone()));
            }
        }
    }
    parts
}

fn merge_rules(into: &mut Vec<(String, Vec<String>)>, rules: &[crate::keywords::DependentRule]) {
    for (name, names) in rules {
        let slot = match into.iter().position(|(known, _)| known.as_str() == &**name) {
            Some(at) => &mut into[at].1,
            None => {
                into.push((name.to_string(), Vec::new()));
                let last = into.len() - 1;
                &mut into[last].1
            }
        };
        for required in names.iter() {
            if !slot.iter().any(|known| known.as_str() == &**required) {
                slot.push(required.to_string());
            }
        }
    }
}

fn key(name: &str) -> Token {
    Token::Key(name.to_owned())
}

/// Writes members, moving one whose path is taken into an `allOf` member of its own.
struct Writer<'p> {
    parts: &'p mut Parts,
    /// The node's own `allOf` members: moved members go after them.
    n_all_of: usize,
    /// Every path written, and every proper prefix of one, for the collision check (a path is taken when it, or a
    /// prefix of it, was written, or it is a prefix of one written): a node with thousands of properties stays
    /// linear.
    leaves: HashSet<Vec<Token>>,
    prefixes: HashSet<Vec<Token>>,
    /// The `allOf` member the last member written was moved into, if it was.
    last_member: Option<usize>,
}

impl Writer<'_> {
    fn taken(&self, path: &[Token]) -> bool {
        self.prefixes.contains(path) || (1..=path.len()).any(|len| self.leaves.contains(&path[..len]))
    }

    fn record(&mut self, path: &[Token]) {
        for len in 1..path.len() {
            self.prefixes.insert(path[..len].to_vec());
        }
        self.leaves.insert(path.to_vec());
    }

    fn put(&mut self, path: Vec<Token>, content: Content) {
        let mut path = path;
        let mut extra = 0;
        self.last_member = None;
        // Bounded: each move takes a further `allOf` member; a node has far fewer keywords than this.
        while self.taken(&path) && extra < 64 {
            let member = self.n_all_of + extra;
            self.last_member = Some(member);
            let moved: Vec<Token> = [key("allOf"), Token::Index(member)]
                .into_iter()
                .chain(path.iter().skip(if extra == 0 { 0 } else { 2 }).cloned())
                .collect();
            if !self.parts.extra_members.contains(&member) {
                self.parts.extra_members.push(member);
            }
            path = moved;
            extra += 1;
        }
        self.record(&path);
        self.parts.members.push((path, content));
    }

    fn put_if_free(&mut self, path: Vec<Token>, content: Content) {
        self.last_member = None;
        if !self.taken(&path) {
            self.record(&path);
            self.parts.members.push((path, content));
        }
    }

    /// Records that the member just written (`written`) comes from `original`.
    fn rename(&mut self, written: &'static str, original: &'static str) {
        let entry = (self.last_member, written, original);
        if !self.parts.renamed.contains(&entry) {
            self.parts.renamed.push(entry);
        }
    }

    fn note(&mut self, note: Note) {
        self.parts.inexpressible.push(note);
    }

    fn schemas(&mut self, name: &'static str, ids: &[NodeId]) {
        if ids.is_empty() {
            self.put(vec![key(name)], Content::Value(json!([])));
        }
        for (index, id) in ids.iter().enumerate() {
            self.put(vec![key(name), Token::Index(index)], Content::Schema(*id));
        }
    }

    fn named_schemas<'n>(&mut self, name: &'static str, entries: impl Iterator<Item = (&'n str, NodeId)>) {
        let mut any = false;
        for (member, id) in entries {
            any = true;
            self.put(
                vec![key(name), Token::Key(member.to_owned())],
                Content::Schema(id),
            );
        }
        if !any {
            self.put(vec![key(name)], Content::Value(json!({})));
        }
    }
}

/// A count keyword's value (`u64`, saturated when compiled).
fn count(value: u64) -> Content {
    Content::Value(json!(value))
}

/// A number kept as its text, read back exactly.
fn number(text: &str) -> Content {
    Content::Value(serde_json::from_str(text).unwrap_or(Value::Null))
}

fn write_keyword(
    writer: &mut Writer<'_>,
    schema: &CompiledSchema,
    keyword: &Keyword,
    unevaluated_items: bool,
) {
    match keyword {
        Keyword::Ref(target) => writer.put(vec![key("$ref")], Content::Ref(*target)),
        Keyword::DynamicRef {
            target,
            anchor,
            keyword,
        } => {
            let original = if *keyword == "/$recursiveRef" {
                "$recursiveRef"
            } else {
                "$dynamicRef"
            };
            writer.put(vec![key("$ref")], Content::Ref(*target));
            writer.rename("$ref", original);
            if anchor.is_some() {
                writer.note(Note::Dynamic(original));
            }
        }
        Keyword::Unresolved { index, .. } => writer.note(Note::Unresolved(*index)),
        Keyword::Type(types) => {
            let names = types.static_names();
            let value = match names {
                [one] => json!(one),
                many => json!(many),
            };
            writer.put(vec![key("type")], Content::Value(value));
        }
        Keyword::Const(value) => writer.put(vec![key("const")], Content::Value(value.clone())),
        Keyword::Enum(values) => writer.put(vec![key("enum")], Content::Value(Value::Array(values.to_vec()))),
        Keyword::Bound { bound, text, .. } => {
            let (written, original) = match bound {
                Bound::Minimum => ("minimum", "minimum"),
                Bound::Maximum => ("maximum", "maximum"),
                Bound::ExclusiveMinimum => ("exclusiveMinimum", "exclusiveMinimum"),
                Bound::ExclusiveMaximum => ("exclusiveMaximum", "exclusiveMaximum"),
                // Draft 4's boolean form: the limit sits in `minimum`/`maximum`.
                Bound::MinimumExclusive => ("exclusiveMinimum", "minimum"),
                Bound::MaximumExclusive => ("exclusiveMaximum", "maximum"),
            };
            writer.put(vec![key(written)], number(text));
            if written != original {
                writer.rename(written, original);
            }
        }
        Keyword::MultipleOf { text, .. } => writer.put(vec![key("multipleOf")], number(text)),
        Keyword::MaxLength(limit) => writer.put(vec![key("maxLength")], count(*limit)),
        Keyword::MinLength(limit) => writer.put(vec![key("minLength")], count(*limit)),
        Keyword::Pattern { pattern, .. } => writer.put(vec![key("pattern")], Content::Value(json!(pattern))),
        Keyword::Format { name, .. } => {
            writer.put(vec![key("format")], Content::Value(json!(name)));
            if !schema.format_assertion {
                writer.note(Note::FormatAsserted);
            }
        }
        Keyword::MaxItems(limit) => writer.put(vec![key("maxItems")], count(*limit)),
        Keyword::MinItems(limit) => writer.put(vec![key("minItems")], count(*limit)),
        Keyword::UniqueItems => writer.put(vec![key("uniqueItems")], Content::Value(json!(true))),
        Keyword::PrefixItems(ids) => {
            writer.schemas("prefixItems", ids);
            // Before 2020-12 the same list is `items` as an array.
            let legacy = ids.first().is_some_and(|first| {
                schema
                    .nodes
                    .get(*first as usize)
                    .is_some_and(|node| node.relative().starts_with("/items/"))
            });
            if legacy {
                writer.rename("prefixItems", "items");
            }
        }
        Keyword::Items { node, kind, .. } => {
            writer.put(vec![key("items")], Content::Schema(*node));
            if *kind == ViolationKind::AdditionalItems {
                writer.rename("items", "additionalItems");
            }
        }
        Keyword::Contains {
            node,
            min,
            max,
            min_explicit,
            annotates,
        } => {
            writer.put(vec![key("contains")], Content::Schema(*node));
            if *min_explicit {
                writer.put(vec![key("minContains")], count(*min));
            }
            if let Some(max) = max {
                writer.put(vec![key("maxContains")], count(*max));
            }
            if !annotates && unevaluated_items {
                writer.note(Note::ContainsNotEvaluating);
            }
        }
        Keyword::MaxProperties(limit) => writer.put(vec![key("maxProperties")], count(*limit)),
        Keyword::MinProperties(limit) => writer.put(vec![key("minProperties")], count(*limit)),
        Keyword::Required(names) => {
            let names: Vec<&str> = names.iter().map(|name| &**name).collect();
            writer.put(vec![key("required")], Content::Value(json!(names)));
        }
        // Written with `dependencies`' lists, merged (see `of`).
        Keyword::DependentRequired(_) => {}
        Keyword::Properties { entries, .. } => {
            writer.named_schemas("properties", entries.iter().map(|(name, id)| (&**name, *id)));
        }
        Keyword::PatternProperties(entries) => {
            let patterns = entries
                .iter()
                .map(|(_, id)| (pattern_of(schema, *id), *id))
                .collect::<Vec<_>>();
            writer.named_schemas(
                "patternProperties",
                patterns.iter().map(|(pattern, id)| (pattern.as_str(), *id)),
            );
        }
        Keyword::AdditionalProperties { node, .. } => {
            writer.put(vec![key("additionalProperties")], Content::Schema(*node));
        }
        Keyword::PropertyNames(node) => writer.put(vec![key("propertyNames")], Content::Schema(*node)),
        Keyword::DependentSchemas(entries) => {
            writer.named_schemas(
                "dependentSchemas",
                entries.iter().map(|(name, id)| (&**name, *id)),
            );
        }
        Keyword::Dependencies { schemas, .. } => {
            for (name, id) in schemas.iter() {
                writer.put(
                    vec![key("dependentSchemas"), Token::Key(name.to_string())],
                    Content::Schema(*id),
                );
            }
            if !schemas.is_empty() {
                writer.rename("dependentSchemas", "dependencies");
            }
        }
        Keyword::AllOf(ids) => writer.schemas("allOf", ids),
        Keyword::AnyOf(ids, _) => writer.schemas("anyOf", ids),
        Keyword::OneOf(ids, _) => writer.schemas("oneOf", ids),
        Keyword::Not(node) => writer.put(vec![key("not")], Content::Schema(*node)),
        Keyword::If { if_, then, else_ } => {
            writer.put(vec![key("if")], Content::Schema(*if_));
            if let Some(then) = then {
                writer.put(vec![key("then")], Content::Schema(*then));
            }
            if let Some(else_) = else_ {
                writer.put(vec![key("else")], Content::Schema(*else_));
            }
        }
        // Its originals are written instead (`Keyword::parts`).
        Keyword::Shape(_) => {}
        Keyword::UnevaluatedProperties(node) => {
            writer.put(vec![key("unevaluatedProperties")], Content::Schema(*node));
        }
        Keyword::UnevaluatedItems(node) => writer.put(vec![key("unevaluatedItems")], Content::Schema(*node)),
    }
}

/// A `patternProperties` member's pattern: the last token of its path from its parent.
fn pattern_of(schema: &CompiledSchema, id: NodeId) -> String {
    let relative = schema.nodes.get(id as usize).map_or("", |node| node.relative());
    let token = relative.rsplit_once('/').map_or(relative, |(_, token)| token);
    token.replace("~1", "/").replace("~0", "~")
}
