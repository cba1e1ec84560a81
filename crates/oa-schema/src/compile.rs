//! The compiler: raw schema JSON in, [`CompiledSchema`] out.
//!
//! Nodes are compiled from a work queue, never by recursion: a keyword that holds a subschema asks for its node id,
//! which is allocated at once and compiled later, so `$ref` cycles simply point back at nodes already allocated.

use crate::dialect::{Dialect, Vocabulary};
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::keywords::{self, Keyword};
use crate::node::{Annotations, Body, CompiledSchema, Node, NodeId, Resource, ResourceId};
use crate::registry::{
    DocId, Place, Registry, ResolveError, child_value, display_base, escape_token, redact, value_key,
};
use crate::unresolved::{UnresolvedCause, UnresolvedReference};
use foldhash::{HashMap, HashMapExt as _};
use serde_json::{Map, Value};
use std::sync::Arc;
use url::Url;

/// Compiler settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// Assert `format` whatever the vocabularies say.
    pub(crate) format_assertion: bool,
    /// Compile a reference that resolves to nothing into [`Keyword::Unresolved`] rather than fail.
    pub(crate) defer_unresolved: bool,
}

/// What a reference resolved to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    /// A node.
    Node(NodeId),
    /// Nothing: the index of its entry in [`CompiledSchema::unresolved`].
    Unresolved(u32),
}

/// The keyword names a reference can be written in, as `'static` names.
fn keyword_name(keyword: &str) -> &'static str {
    match keyword {
        "$dynamicRef" => "$dynamicRef",
        "$recursiveRef" => "$recursiveRef",
        _ => "$ref",
    }
}

/// Compiles the document `doc_id` of `registry`, starting at its root.
pub(crate) fn compile(
    registry: Registry<'_>,
    doc_id: DocId,
    settings: Settings,
) -> Result<CompiledSchema, SchemaError> {
    // Nearly every subschema of the document becomes a node: size the tables for them up front rather than
    // growing (and rehashing) them step by step.
    let n_expected = registry.n_subschemas(doc_id);
    let mut compiler = Compiler {
        registry,
        settings,
        nodes: Vec::with_capacity(n_expected),
        values: Vec::with_capacity(n_expected),
        ids: HashMap::with_capacity(n_expected),
        queue: Vec::new(),
        // Most schemas are one resource: room for more is made when a second comes.
        resources: Vec::with_capacity(1),
        resource_ids: HashMap::new(),
        last_resource: None,
        resolved: Vec::new(),
        regexes: HashMap::new(),
        annotations: Vec::new(),
        unresolved: Vec::new(),
    };
    let root = compiler.node_for(doc_id, String::new(), None);
    while let Some(pending) = compiler.queue.pop() {
        compiler.compile_node(pending)?;
    }
    // The registry and the compiler's tables are done with: free them before the fused shapes and the plans are
    // built, so that the compile's peak is not the compiled form and the indexes together.
    let nodes = std::mem::take(&mut compiler.nodes);
    let mut resources = std::mem::take(&mut compiler.resources);
    let mut annotations = std::mem::take(&mut compiler.annotations);
    let unresolved = std::mem::take(&mut compiler.unresolved).into_boxed_slice();
    let documents = compiler.registry.document_uris();
    resources.shrink_to_fit();
    drop(compiler);
    // Collected in place: `Option<Node>` is as large as `Node`, so the compiled nodes reuse the slots' buffer.
    let mut nodes = nodes
        .into_iter()
        .enumerate()
        .map(|(id, node)| {
            node.ok_or_else(|| SchemaError::InvalidKeyword {
                location: format!("node {id}"),
                keyword: String::new(),
                reason: "internal error: a node was allocated but never compiled".to_owned(),
            })
        })
        .collect::<Result<Vec<Node>, SchemaError>>()?;
    // The slots were sized for every subschema the registry found; not all become nodes.
    nodes.shrink_to_fit();
    order_properties_cheap_first(&mut nodes);
    find_discriminators(&mut nodes);
    keywords::fuse_shapes(&mut nodes);
    resolve_root_dynamic_anchors(&mut nodes, &resources, root);
    let dynamic_scope_matters = nodes.iter().any(|node| match &node.body {
        Body::Keywords(keywords) => keywords
            .iter()
            .any(|keyword| matches!(keyword, Keyword::DynamicRef { anchor: Some(_), .. })),
        Body::Bool(_) => false,
    });
    Ok(CompiledSchema {
        typed: std::sync::OnceLock::new(),
        plans: crate::flag::plan::plans(&nodes, dynamic_scope_matters),
        annotations: {
            annotations.sort_by_key(|(id, _)| *id);
            annotations.into_boxed_slice()
        },
        nodes,
        resources,
        root,
        dynamic_scope_matters,
        sorted_maps: crate::node::maps_iterate_sorted(),
        unresolved,
        documents,
        format_assertion: settings.format_assertion,
    })
}

struct Compiler<'a> {
    registry: Registry<'a>,
    settings: Settings,
    nodes: Vec<Option<Node>>,
    /// Each node's schema, by node id (`None` when its pointer leads nowhere, which compiling it reports).
    values: Vec<Option<&'a Value>>,
    /// Node ids by their schema's [`value_key`]: an address is one subschema in one document, and the index keeps
    /// no pointer text.
    ids: HashMap<usize, NodeId>,
    /// Nodes allocated and not yet compiled; a pointer is kept only until its node is compiled.
    queue: Vec<Pending>,
    /// Resources, indexed by `resource_ids`.
    resources: Vec<Resource>,
    resource_ids: HashMap<String, ResourceId>,
    /// The base of the last node compiled and its resource: neighbouring nodes mostly share it.
    last_resource: Option<(Arc<Url>, ResourceId)>,
    /// Nodes that references resolved to, by the resource whose base they resolve against (its id) and reference
    /// text: large schemas repeat the same few references thousands of times (FHIR's `#/definitions/Extension`),
    /// and resolving one parses a URI.
    resolved: Vec<HashMap<Box<str>, NodeId>>,
    /// Compiled regexes by pattern, shared by every keyword that uses the same pattern.
    regexes: HashMap<String, EcmaRegex>,
    /// The values of each node's annotation-only keywords, for the nodes that have some.
    annotations: Vec<(NodeId, Annotations)>,
    /// References that resolve to nothing, when the settings defer them.
    unresolved: Vec<UnresolvedReference>,
}

/// A node waiting to be compiled: its document and the JSON Pointer of its schema there.
#[derive(Debug)]
struct Pending {
    id: NodeId,
    doc_id: DocId,
    pointer: String,
}

impl<'a> Compiler<'a> {
    /// The node for a place, allocating and queueing it the first time. `value` is the schema there, when known
    /// (else it is looked up by pointer).
    fn node_for(&mut self, doc_id: DocId, pointer: String, value: Option<&'a Value>) -> NodeId {
        let value = value.or_else(|| self.registry.value(doc_id, &pointer));
        if let Some(id) = value.and_then(|value| self.ids.get(&value_key(value))) {
            return *id;
        }
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.nodes.push(None);
        self.values.push(value);
        if let Some(value) = value {
            self.ids.insert(value_key(value), id);
        }
        self.queue.push(Pending { id, doc_id, pointer });
        id
    }

    /// The resource for a base URI (whose root is at `root_pointer` of document `doc_id`), registering its dynamic
    /// anchors the first time.
    fn resource_for(&mut self, base: &Arc<Url>, doc_id: DocId, root_pointer: &str) -> ResourceId {
        if let Some((last, id)) = &self.last_resource
            && Arc::ptr_eq(last, base)
        {
            return *id;
        }
        let id = self.resource_for_uri(base, doc_id, root_pointer);
        self.last_resource = Some((Arc::clone(base), id));
        id
    }

    fn resource_for_uri(&mut self, base: &Url, doc_id: DocId, root_pointer: &str) -> ResourceId {
        if let Some(id) = self.resource_ids.get(base.as_str()) {
            return *id;
        }
        let id = ResourceId::try_from(self.resources.len()).unwrap_or(ResourceId::MAX);
        self.resource_ids.insert(base.as_str().to_owned(), id);
        let anchors: Vec<(String, DocId, String)> = self.registry.dynamic_anchors(base.as_str()).to_vec();
        let mut dynamic_anchors = std::collections::HashMap::new();
        for (name, doc_id, pointer) in anchors {
            let node = self.node_for(doc_id, pointer, None);
            dynamic_anchors.insert(name.into_boxed_str(), node);
        }
        self.resources.push(Resource {
            base: display_base(base).into(),
            dynamic_anchors,
            document: u32::try_from(doc_id).unwrap_or(u32::MAX),
            root_pointer: root_pointer.into(),
        });
        id
    }

    fn compile_node(&mut self, pending: Pending) -> Result<(), SchemaError> {
        let Pending { id, doc_id, pointer } = pending;
        let value = self.values.get(id as usize).copied().flatten();
        let place = self.registry.place(doc_id, &pointer, value);
        let root_pointer = pointer.get(..place.root_len()).unwrap_or_default();
        let resource = self.resource_for(&place.base, doc_id, root_pointer);
        let within = pointer.get(place.root_len()..).unwrap_or(&pointer);
        let shown_base = self
            .resources
            .get(resource as usize)
            .map_or("", |resource| &resource.base);
        let base_len = shown_base.len();
        let mut absolute = String::with_capacity(shown_base.len() + 1 + within.len());
        absolute.push_str(shown_base);
        absolute.push('#');
        push_fragment_encoded(within, &mut absolute);
        let relative = pointer.get(place.relative_start()..).unwrap_or_default();
        let Some(value) = value else {
            return Err(SchemaError::UnresolvedReference {
                location: absolute,
                reference: pointer.to_string(),
            });
        };
        let node = match value {
            Value::Bool(flag) => Node::new(
                Body::Bool(*flag),
                resource,
                fragment_of(absolute, base_len),
                relative,
            ),
            Value::Object(object) => {
                let dialect = self.registry.dialect(doc_id);
                let mut cx = NodeCompiler {
                    compiler: self,
                    doc_id,
                    resource,
                    pointer: &pointer,
                    schema: value,
                    place: &place,
                    absolute: &absolute,
                };
                // Before 2019-09, `$ref` makes its siblings ignored.
                let only_ref = if dialect.draft.ref_overrides_siblings() {
                    object.get("$ref")
                } else {
                    None
                };
                // At most one keyword per member: sized once rather than grown by doubling.
                let mut compiled = Vec::with_capacity(if only_ref.is_some() { 1 } else { object.len() });
                match only_ref {
                    Some(reference) => compiled.extend(cx.keyword(dialect, "$ref", reference, object)?),
                    None => {
                        for (name, value) in object {
                            if let Some(keyword) = cx.keyword(dialect, name, value, object)? {
                                compiled.push(keyword);
                            }
                        }
                    }
                }
                compiled.sort_by_key(Keyword::order);
                let own_type = compiled.iter().find_map(|keyword| match keyword {
                    Keyword::Type(types) => Some(*types),
                    _ => None,
                });
                let only_type = match compiled.as_slice() {
                    [Keyword::Type(types)] => Some(*types),
                    _ => None,
                };
                let refers = compiled
                    .iter()
                    .any(|keyword| matches!(keyword, Keyword::Ref(_) | Keyword::DynamicRef { .. }));
                let tracks_evaluated = compiled.iter().any(|keyword| {
                    matches!(
                        keyword,
                        Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_)
                    )
                });
                if only_ref.is_none()
                    && let Some(values) = annotations_of(object, dialect)
                {
                    self.annotations.push((id, values));
                }
                let mut node = Node::new(
                    Body::Keywords(compiled.into_boxed_slice()),
                    resource,
                    fragment_of(absolute, base_len),
                    relative,
                );
                node.own_type = own_type;
                node.only_type = only_type;
                node.tracks_evaluated = tracks_evaluated;
                node.refers = refers;
                node
            }
            _ => {
                return Err(SchemaError::InvalidKeyword {
                    location: absolute,
                    keyword: String::new(),
                    reason: "a schema must be an object or a boolean".to_owned(),
                });
            }
        };
        self.nodes[id as usize] = Some(node);
        Ok(())
    }
}

/// Compiles the keywords of one schema object; handed to each keyword's `compile` function.
pub(crate) struct NodeCompiler<'c, 'a> {
    compiler: &'c mut Compiler<'a>,
    doc_id: DocId,
    /// The resource of the schema (that of `place.base`).
    resource: ResourceId,
    pointer: &'c str,
    /// The schema being compiled.
    schema: &'a Value,
    place: &'c Place,
    absolute: &'c str,
}

impl std::fmt::Debug for NodeCompiler<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeCompiler")
            .field("absolute", &self.absolute)
            .finish_non_exhaustive()
    }
}

impl<'a> NodeCompiler<'_, 'a> {
    fn keyword(
        &mut self,
        dialect: Dialect,
        name: &str,
        value: &'a Value,
        object: &'a Map<String, Value>,
    ) -> Result<Option<Keyword>, SchemaError> {
        match dialect.keyword(name) {
            Some(spec) => keywords::compile(self, spec, value, object),
            None => Ok(None),
        }
    }

    /// Whether `format` is asserted for this schema.
    pub(crate) fn format_assertion(&self) -> bool {
        self.compiler.settings.format_assertion
            || self
                .compiler
                .registry
                .dialect(self.doc_id)
                .vocabularies
                .contains(Vocabulary::FormatAssertion)
    }

    /// The node of a subschema under this one: `segments` are raw (unescaped) tokens below this schema.
    pub(crate) fn child(&mut self, segments: &[&str]) -> NodeId {
        let mut pointer = String::with_capacity(
            self.pointer.len() + segments.iter().map(|segment| segment.len() + 1).sum::<usize>(),
        );
        pointer.push_str(self.pointer);
        for segment in segments {
            pointer.push('/');
            pointer.push_str(&escape_token(segment));
        }
        let value = child_value(self.schema, segments);
        self.compiler.node_for(self.doc_id, pointer, value)
    }

    /// The absolute location of a keyword of this schema, for errors.
    pub(crate) fn location(&self, keyword: &str) -> String {
        format!("{}/{}", self.absolute, escape_token(keyword))
    }

    /// A `SchemaError::InvalidKeyword` for this schema.
    pub(crate) fn invalid(&self, keyword: &str, reason: impl Into<String>) -> SchemaError {
        SchemaError::InvalidKeyword {
            location: self.location(keyword),
            keyword: keyword.to_owned(),
            reason: reason.into(),
        }
    }

    /// Resolves a reference written in `keyword` to a node; to an entry of the unresolved references when it
    /// resolves to nothing and the settings defer that (else that is an error).
    pub(crate) fn resolve(&mut self, keyword: &str, reference: &str) -> Result<Target, SchemaError> {
        let base = Arc::clone(&self.place.base);
        if let Some(id) = self
            .compiler
            .resolved
            .get(self.resource as usize)
            .and_then(|by_reference| by_reference.get(reference))
        {
            return Ok(Target::Node(*id));
        }
        match self.compiler.registry.resolve(&base, reference) {
            Ok(Ok((doc_id, pointer))) => {
                let id = self.compiler.node_for(doc_id, pointer, None);
                let resolved = &mut self.compiler.resolved;
                let slot = self.resource as usize;
                if resolved.len() <= slot {
                    resolved.resize_with(slot + 1, HashMap::new);
                }
                if let Some(by_reference) = resolved.get_mut(slot) {
                    by_reference.insert(reference.into(), id);
                }
                Ok(Target::Node(id))
            }
            Ok(Err(miss)) => {
                let location = self.location(keyword);
                // A URI the retriever is still to be asked for: this pass is compiled again once it has answered.
                let pending = self.compiler.registry.is_pending(&miss.uri);
                if !self.compiler.settings.defer_unresolved && !pending {
                    return Err(match miss.cause {
                        UnresolvedCause::Retrieval(error) => SchemaError::Retrieval {
                            location,
                            reference: redact(reference),
                            error,
                        },
                        _ => SchemaError::UnresolvedReference {
                            location,
                            reference: redact(reference),
                        },
                    });
                }
                let unresolved = &mut self.compiler.unresolved;
                let index = u32::try_from(unresolved.len()).unwrap_or(u32::MAX);
                unresolved.push(UnresolvedReference {
                    reference: redact(reference),
                    keyword: keyword_name(keyword),
                    location,
                    uri: redact(miss.uri.as_str()),
                    cause: miss.cause,
                });
                Ok(Target::Unresolved(index))
            }
            Err(ResolveError::Uri(reason)) => Err(SchemaError::InvalidUri {
                location: self.location(keyword),
                uri: redact(reference),
                reason,
            }),
            Err(ResolveError::Schema(err)) => Err(err),
        }
    }

    /// Whether the node a reference resolves to has `member` with this value (`$dynamicAnchor` with the
    /// reference's name, `$recursiveAnchor: true`).
    pub(crate) fn target_declares(&self, target: NodeId, member: &str, value: &Value) -> bool {
        self.compiler
            .values
            .get(target as usize)
            .copied()
            .flatten()
            .and_then(|schema| schema.get(member))
            .is_some_and(|declared| declared == value)
    }

    /// A compiled regex, shared by pattern.
    pub(crate) fn regex(&mut self, keyword: &str, pattern: &str) -> Result<EcmaRegex, SchemaError> {
        if let Some(regex) = self.compiler.regexes.get(pattern) {
            return Ok(regex.clone());
        }
        let regex = EcmaRegex::new(pattern).map_err(|err| SchemaError::InvalidRegex {
            location: self.location(keyword),
            pattern: pattern.to_owned(),
            reason: err.to_string(),
        })?;
        self.compiler.regexes.insert(pattern.to_owned(), regex.clone());
        Ok(regex)
    }
}

/// The fragment part (`#` onwards) of a node's absolute location: nodes keep it alone, their resource the base.
fn fragment_of(absolute: String, base_len: usize) -> String {
    if base_len == 0 {
        absolute
    } else {
        absolute.get(base_len..).unwrap_or_default().to_owned()
    }
}

/// The bytes a JSON Pointer escapes in a URI fragment (RFC 3986's fragment characters, `/` and `%`-escapes aside).
const FRAGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'#')
    .add(b'%')
    .add(b'{')
    .add(b'}')
    .add(b'|')
    .add(b'\\')
    .add(b'^')
    .add(b'[')
    .add(b']');

/// Percent-encodes a JSON Pointer for use as a URI fragment, appending it to `out`.
pub(crate) fn push_fragment_encoded(pointer: &str, out: &mut String) {
    // Nearly every pointer needs no escape: one scan, one copy. Every byte `FRAGMENT` escapes (and every non-ASCII
    // byte) is outside the printable range or one of those listed.
    const PLAIN: [bool; 256] = {
        let mut plain = [false; 256];
        let mut byte = 0x21;
        while byte < 0x7f {
            plain[byte] = !matches!(
                byte as u8,
                b'"' | b'<' | b'>' | b'`' | b'#' | b'%' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'[' | b']'
            );
            byte += 1;
        }
        plain
    };
    let plain = |byte: u8| PLAIN[usize::from(byte)];
    if pointer.bytes().all(plain) {
        out.push_str(pointer);
        return;
    }
    for piece in percent_encoding::utf8_percent_encode(pointer, FRAGMENT) {
        out.push_str(piece);
    }
}

/// Reorders `properties` entries so that members whose schemas only check the value itself (`type`, `enum`, `pattern`,
/// `const`, bounds) run before members that descend further. Unions of object schemas discriminated by such a
/// member (GeoJSON's `type: {"enum": ["Point"]}`) then reject a wrong member before walking its large siblings. The
/// report is sorted afterwards, so evaluation order never shows in it.
fn order_properties_cheap_first(nodes: &mut [Node]) {
    let flat: Vec<bool> = nodes.iter().map(is_cheap).collect();
    let cheap: Vec<bool> = nodes.iter().map(|node| is_cheap_union(node, &flat)).collect();
    let is_false: Vec<bool> = nodes
        .iter()
        .map(|node| matches!(node.body, Body::Bool(false)))
        .collect();
    for node in nodes.iter_mut() {
        let Body::Keywords(keywords) = &mut node.body else {
            continue;
        };
        // `additionalProperties: false` only compares names: run it before `properties` recurses, so that a closed
        // union member with a stray member fails before it descends (stable, so every other keyword keeps its
        // place).
        keywords.sort_by_key(|keyword| match keyword {
            Keyword::AdditionalProperties { node, .. }
                if is_false.get(*node as usize).copied().unwrap_or(false) =>
            {
                3
            }
            other => u16::from(other.order()) * 2,
        });
        for keyword in keywords.iter_mut() {
            if let Keyword::Properties {
                entries,
                by_name,
                split,
            } = keyword
            {
                let is_cheap = |id: NodeId| cheap.get(id as usize).copied().unwrap_or(false);
                entries.sort_by_key(|(_, id)| !is_cheap(*id));
                // Stable: each group stays sorted by name.
                by_name.sort_by_key(|(_, id)| !is_cheap(*id));
                *split = by_name.iter().take_while(|(_, id)| is_cheap(*id)).count();
            }
        }
    }
}

/// Whether a node checks only the value in hand, without applying subschemas.
fn is_cheap(node: &Node) -> bool {
    match &node.body {
        Body::Bool(_) => true,
        Body::Keywords(keywords) => keywords.iter().all(Keyword::checks_value_only),
    }
}

/// Whether a node is cheap, or a union (`anyOf`/`oneOf`/`allOf`, the nullable `anyOf: [T, null]` of LLM schemas)
/// of cheap members, or a `$ref` to a cheap node, beside cheap keywords: one level only, so it costs a few probes of the value in hand and
/// can run before members that recurse, letting `is_valid` fail early.
fn is_cheap_union(node: &Node, cheap: &[bool]) -> bool {
    let members_cheap = |ids: &[NodeId]| {
        ids.iter()
            .all(|id| cheap.get(*id as usize).copied().unwrap_or(false))
    };
    match &node.body {
        Body::Bool(_) => true,
        Body::Keywords(keywords) => keywords.iter().all(|keyword| match keyword {
            Keyword::AllOf(ids) | Keyword::AnyOf(ids, _) | Keyword::OneOf(ids, _) => members_cheap(ids),
            // A reference to a cheap definition (FHIR's `{"$ref": "#/definitions/boolean"}`) checks the value in
            // hand too.
            Keyword::Ref(id) => members_cheap(std::slice::from_ref(id)),
            other => other.checks_value_only(),
        }),
    }
}

/// Keywords whose value is an annotation, reported by the "basic" output format.
const ANNOTATION_KEYWORDS: &[&str] = &[
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
];

/// The annotation keywords of a schema object that its dialect knows, with their vocabulary in force.
fn annotations_of(object: &Map<String, Value>, dialect: Dialect) -> Option<Annotations> {
    // One pass over the members (usually fewer than the list), kept in the list's order.
    let mut found: Vec<(usize, &'static str, Value)> = Vec::new();
    for (key, value) in object {
        let Some(order) = ANNOTATION_KEYWORDS
            .iter()
            .position(|name| name.len() == key.len() && *name == key)
        else {
            continue;
        };
        let name = ANNOTATION_KEYWORDS[order];
        if dialect.keyword(name).is_some() {
            found.push((order, name, value.clone()));
        }
    }
    if found.is_empty() {
        return None;
    }
    found.sort_unstable_by_key(|(order, ..)| *order);
    Some(found.into_iter().map(|(_, name, value)| (name, value)).collect())
}

/// Gives each `anyOf`/`oneOf` whose members pin a common property its [`Discriminator`](keywords::Discriminator).
fn find_discriminators(nodes: &mut [Node]) {
    let mut found = Vec::new();
    for (node_idx, node) in nodes.iter().enumerate() {
        let Body::Keywords(keywords) = &node.body else {
            continue;
        };
        for (keyword_idx, keyword) in keywords.iter().enumerate() {
            if let Keyword::AnyOf(members, _) | Keyword::OneOf(members, _) = keyword
                && let Some(discriminator) = keywords::find_discriminator(nodes, members)
            {
                found.push((node_idx, keyword_idx, discriminator));
            }
        }
    }
    for (node_idx, keyword_idx, discriminator) in found {
        if let Body::Keywords(keywords) = &mut nodes[node_idx].body
            && let Some(Keyword::AnyOf(_, slot) | Keyword::OneOf(_, slot)) = keywords.get_mut(keyword_idx)
        {
            *slot = Some(Box::new(discriminator));
        }
    }
}

/// Turns every `$dynamicRef` to an anchor that the root's resource declares into a plain reference to that anchor.
///
/// The root's resource is the outermost entry of every dynamic scope, and the outermost resource declaring the
/// anchor wins, so such a reference always lands there, whatever the path. The meta-schemas' `$dynamicRef: "#meta"`
/// are all of this kind: checking a schema against its meta-schema then needs no dynamic scope at all.
fn resolve_root_dynamic_anchors(nodes: &mut [Node], resources: &[Resource], root: NodeId) {
    let Some(root_resource) = nodes
        .get(root as usize)
        .and_then(|node| resources.get(node.resource as usize))
    else {
        return;
    };
    for node in nodes.iter_mut() {
        let Body::Keywords(keywords) = &mut node.body else {
            continue;
        };
        for keyword in keywords.iter_mut() {
            if let Keyword::DynamicRef { target, anchor, .. } = keyword
                && let Some(name) = anchor.as_deref()
                && let Some(found) = root_resource.dynamic_anchors.get(name)
            {
                *target = *found;
                *anchor = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::push_fragment_encoded;

    #[test]
    fn pointers_without_escapes_are_copied_as_the_encoder_would_write_them() {
        let encoded = |pointer: &str| {
            let mut out = String::new();
            push_fragment_encoded(pointer, &mut out);
            out
        };
        for code in 0..=0x7f_u8 {
            let pointer = format!("/a{}b", char::from(code));
            let expected: String = percent_encoding::utf8_percent_encode(&pointer, super::FRAGMENT).collect();
            assert_eq!(encoded(&pointer), expected, "byte {code:#x}");
        }
        assert_eq!(encoded("/properties/é x"), "/properties/%C3%A9%20x");
        assert_eq!(encoded("/definitions/plain"), "/definitions/plain");
    }
}
