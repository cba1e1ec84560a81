//! The compiled form of a schema: a flat arena of nodes, each a list of compiled keywords.
//!
//! Raw schema JSON is compiled once into `CompiledSchema`: references become node indices, numbers and regexes are
//! compiled, and every node knows its absolute location so violations can name it without walking the schema again.

use crate::keywords::Keyword;
use crate::types::TypeSet;
use serde_json::Value;
use std::collections::HashMap;

/// Index of a node in [`CompiledSchema::nodes`].
pub(crate) type NodeId = u32;

/// Index of a schema resource (a document root or a subschema with `$id`) in [`CompiledSchema::resources`].
pub(crate) type ResourceId = u32;

/// The values of one node's annotation-only keywords, by keyword name.
pub(crate) type Annotations = Box<[(&'static str, Value)]>;

/// A schema ready to run.
#[derive(Debug)]
pub(crate) struct CompiledSchema {
    /// Every compiled subschema; `root` is where validation starts.
    pub(crate) nodes: Vec<Node>,
    /// Every schema resource met while compiling.
    pub(crate) resources: Vec<Resource>,
    /// The node validation starts from.
    pub(crate) root: NodeId,
    /// Every node laid out for the yes/no evaluator (indices match `nodes`).
    pub(crate) plans: Box<[crate::flag::plan::Plan]>,
    /// Values of the annotation-only keywords (meta-data, `format` when not asserted, content) of the nodes that
    /// have some, by node id (sorted), for the "basic" output format. Kept beside the nodes rather than in each:
    /// most nodes have none, and every byte of a node counts in a small schema's compiled size.
    pub(crate) annotations: Box<[(NodeId, Annotations)]>,
    /// Whether some `$dynamicRef` really depends on the dynamic scope, so the same node over the same instance can
    /// give different outcomes (which rules out memoizing them).
    pub(crate) dynamic_scope_matters: bool,
    /// Whether `serde_json::Map` iterates in key order in this build (it does unless some crate turns on
    /// serde_json's `preserve_order`), which lets object keywords merge sorted name lists with an instance's
    /// members instead of looking each name up.
    pub(crate) sorted_maps: bool,
    /// How containers decompose for the validating deserializer (`Validator::deserialize_str`), built on first use.
    pub(crate) typed: std::sync::OnceLock<crate::typed::plan::TypedPlan>,
    /// References that resolve to nothing (only when compiled with them deferred), indexed by
    /// `Keyword::Unresolved`.
    pub(crate) unresolved: Box<[crate::unresolved::UnresolvedReference]>,
    /// The URI each document was loaded under, as locations show it; the root schema's is first.
    pub(crate) documents: Box<[Box<str>]>,
    /// Whether compiled with `format` asserted by the settings (rather than by a meta-schema's vocabulary).
    pub(crate) format_assertion: bool,
}

impl CompiledSchema {
    /// The values of a node's annotation-only keywords, if it has any.
    pub(crate) fn annotations_of(&self, id: NodeId) -> Option<&[(&'static str, Value)]> {
        let found = self
            .annotations
            .binary_search_by_key(&id, |(node, _)| *node)
            .ok()?;
        self.annotations.get(found).map(|(_, values)| &**values)
    }

    /// A node's absolute location: its resource's base URI, then `#` and the JSON Pointer from the resource root.
    pub(crate) fn absolute<'s>(&'s self, node: &'s Node) -> Absolute<'s> {
        Absolute {
            base: self
                .resources
                .get(node.resource as usize)
                .map_or("", |resource| &resource.base),
            fragment: node.fragment(),
        }
    }
}

/// A node's absolute location in its two stored parts, written out without joining them first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Absolute<'s> {
    /// The resource's base URI as shown (empty for the default base).
    pub(crate) base: &'s str,
    /// `#` and the JSON Pointer from the resource root.
    pub(crate) fragment: &'s str,
}

impl Absolute<'_> {
    /// The length of the location written out.
    pub(crate) fn len(self) -> usize {
        self.base.len() + self.fragment.len()
    }
}

impl std::fmt::Display for Absolute<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.base)?;
        f.write_str(self.fragment)
    }
}

/// Whether `serde_json::Map` iterates in key order in this build.
/// Asked once per process: the answer is fixed at build time, and the probe map allocates more than a small
/// schema's compiled form would otherwise need at the compile's peak.
pub(crate) fn maps_iterate_sorted() -> bool {
    static SORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut map = serde_json::Map::new();
        map.insert("b".to_owned(), Value::Null);
        map.insert("a".to_owned(), Value::Null);
        map.keys().next().is_some_and(|first| first == "a")
    })
}

/// One compiled subschema (48 bytes: a small schema is mostly nodes).
#[derive(Debug)]
pub(crate) struct Node {
    /// What the node does.
    pub(crate) body: Body,
    /// The node's two locations in one string: read through [`Node::fragment`] and [`Node::relative`] (see
    /// [`location`]).
    location: Box<str>,
    /// Where the relative path starts in `location`, and whether it follows the fragment (see [`location`]).
    location_cut: u32,
    /// The resource the node belongs to; entering it puts this resource on the dynamic scope.
    pub(crate) resource: ResourceId,
    /// The node's own `type` keyword, used to pick the members of a failed `anyOf`/`oneOf` that admit the instance.
    pub(crate) own_type: Option<TypeSet>,
    /// The node's `type` when that is its only keyword (`{"type": "number"}`, the usual array item), which the
    /// evaluator checks in place without setting up a frame.
    pub(crate) only_type: Option<TypeSet>,
    /// Whether the node has `unevaluatedProperties`/`unevaluatedItems`, so it must track what its siblings evaluate.
    pub(crate) tracks_evaluated: bool,
    /// Whether the node has `$ref` or a dynamic reference: a failed union resolves its members' types through them.
    pub(crate) refers: bool,
}

impl Node {
    /// A node at `fragment` (`#` and the JSON Pointer from its resource's root), `relative` to its lexical parent.
    pub(crate) fn new(body: Body, resource: ResourceId, fragment: String, relative: &str) -> Self {
        let (location, location_cut) = location::join(fragment, relative);
        Self {
            body,
            location,
            location_cut,
            resource,
            own_type: None,
            only_type: None,
            tracks_evaluated: false,
            refers: false,
        }
    }

    /// The fragment of the node's absolute location: `#` and the JSON Pointer from its resource's root, which
    /// [`CompiledSchema::absolute`] puts after the resource's base.
    pub(crate) fn fragment(&self) -> &str {
        location::fragment(&self.location, self.location_cut)
    }

    /// The path from its lexical parent schema (`/properties/a`), used to build evaluation paths lazily.
    pub(crate) fn relative(&self) -> &str {
        location::relative(&self.location, self.location_cut)
    }
}

/// A node's two locations in one allocation: the fragment of its absolute location (the resource keeps the base),
/// then the path from the lexical parent schema unless the fragment already ends with it (as it does for every
/// node but resource roots and names that need percent-encoding). One string instead of two, and a 32-bit cut
/// whose top bit says whether the relative path was appended, keep a node small.
mod location {
    /// The top bit of a cut: the relative path was appended after the fragment.
    const APPENDED: u32 = 1 << 31;

    /// Both locations in one string, and the cut that reads them back.
    pub(super) fn join(mut fragment: String, relative: &str) -> (Box<str>, u32) {
        let fragment_len = fragment.len();
        let (start, appended) = if fragment.ends_with(relative) {
            (fragment_len - relative.len(), 0)
        } else {
            fragment.push_str(relative);
            (fragment_len, APPENDED)
        };
        // Locations are JSON Pointers within one document, far below 2 GiB; should one not fit, it is kept whole
        // and the relative path reads as empty rather than wrong.
        let cut = match u32::try_from(start) {
            Ok(start) if start < APPENDED => start | appended,
            _ => u32::MAX,
        };
        (fragment.into_boxed_str(), cut)
    }

    /// The fragment.
    pub(super) fn fragment(text: &str, cut: u32) -> &str {
        if cut & APPENDED == 0 {
            text
        } else {
            text.get(..(cut & !APPENDED) as usize).unwrap_or(text)
        }
    }

    /// The path from the lexical parent schema.
    pub(super) fn relative(text: &str, cut: u32) -> &str {
        text.get((cut & !APPENDED) as usize..).unwrap_or_default()
    }
}

/// A node's behaviour.
#[derive(Debug)]
pub(crate) enum Body {
    /// `true` or `false`.
    Bool(bool),
    /// Keywords in evaluation order (`unevaluated*` last).
    Keywords(Box<[Keyword]>),
}

/// A schema resource: what `$dynamicRef` needs to find dynamic anchors in the dynamic scope.
#[derive(Debug)]
pub(crate) struct Resource {
    /// The resource's base URI as locations show it (empty for the default base, query redacted). Every node of
    /// the resource keeps only the fragment of its absolute location: the base, often a long URI, is kept once.
    pub(crate) base: Box<str>,
    /// `$dynamicAnchor` names declared in this resource, with their nodes.
    pub(crate) dynamic_anchors: HashMap<Box<str>, NodeId>,
    /// The document the resource is in (an index into [`CompiledSchema::documents`]), and the JSON Pointer of its
    /// root there: with a node's fragment, where the node came from (for bundles).
    pub(crate) document: u32,
    pub(crate) root_pointer: Box<str>,
}

#[cfg(test)]
mod tests {
    use super::{Body, Node};

    fn node_at(fragment: &str, relative: &str) -> Node {
        Node::new(Body::Bool(true), 0, fragment.to_owned(), relative)
    }

    #[test]
    fn a_relative_path_that_ends_the_fragment_is_not_stored_twice() {
        let node = node_at("#/properties/a", "/properties/a");
        assert_eq!(node.fragment(), "#/properties/a");
        assert_eq!(node.relative(), "/properties/a");
        assert_eq!(node.location.len(), "#/properties/a".len());
    }

    #[test]
    fn other_relative_paths_follow_the_fragment() {
        // A resource root (its fragment starts over at `#`) and a name that needed percent-encoding.
        let root = node_at("#", "/items");
        assert_eq!(root.fragment(), "#");
        assert_eq!(root.relative(), "/items");
        let encoded = node_at("#/properties/a%20b", "/properties/a b");
        assert_eq!(encoded.fragment(), "#/properties/a%20b");
        assert_eq!(encoded.relative(), "/properties/a b");
        let document_root = node_at("#", "");
        assert_eq!(document_root.fragment(), "#");
        assert_eq!(document_root.relative(), "");
    }

    #[test]
    fn a_node_is_48_bytes() {
        // The compiled size of small schemas (issue 5's memory bound) rests on it.
        assert_eq!(std::mem::size_of::<Node>(), 48);
    }
}
